// The kinds of failure a person filters rollouts by, read from the one-line errors that parse.ts and apply.ts write
// (and that rollouts store). The patterns follow those messages; test/diagram/language/error-kinds.test.ts makes each kind from
// a real completion, so a reworded message fails there instead of silently matching nothing.

export const ERROR_KINDS = ['unparsed', 'self-arrow', 'duplicate id', 'missing end', 'schema', 'other', 'cut at the limit'] as const;
export type ErrorKind = (typeof ERROR_KINDS)[number];

const PATTERNS: [ErrorKind, RegExp][] = [
  ['unparsed', /^(invalid JSON|model output does not contain JSON|missing actions array|actions array is empty|too many actions|each action must be an object|input is \d+ characters)/],
  ['self-arrow', /arrow cannot connect a shape to itself/],
  ['duplicate id', /duplicate shape id/],
  ['missing end', /arrow (source|target) does not exist/],
  ['schema', /^action \d+: (.* is required|.* must be |unknown |.* is too large)/],
];

/** The kinds of a rollout's errors, in ERROR_KINDS order: an error none of the patterns names (a tldraw readback, an
 *  edit on a shape that is not there) is `other`; a completion cut by the token limit is `cut at the limit`. */
export function errorKindsOf(errors: readonly string[], finishReason?: string): ErrorKind[] {
  const kinds = new Set<ErrorKind>();
  for (const e of errors) {
    const named = PATTERNS.filter(([, pattern]) => pattern.test(e));
    for (const [kind] of named) kinds.add(kind);
    if (named.length === 0) kinds.add('other');
  }
  if (finishReason === 'length') kinds.add('cut at the limit');
  return ERROR_KINDS.filter((k) => kinds.has(k));
}
