// The request walk: the teacher's answer states, on each shape, the words of the request from where the previous
// shape's name ended through this shape's own name (`say`, which nothing reads: actions.ts). The shapes come in the
// order the request first names them, so the says laid end to end are the request up to its last name, in order.
// Why: a student picks a new shape's name 62% right when it must choose among the request's names, because after
// `"id":"` its copying heads see every earlier id as a match. With the walk, the say is the continuation of the request
// from where the last one stopped, which the planted induction heads copy, and the id is the name the say has just
// written (bench/decisions.ts measures it; docs/sft.md).

/** Where `name` next stands in `text` as whole words at or after `from` (both lower-cased), or -1. */
export function wordIndex(text: string, name: string, from: number): number {
  const word = /[\p{L}\p{N}]/u;
  for (let i = text.indexOf(name, from); i !== -1; i = text.indexOf(name, i + 1)) {
    if (!word.test(text[i - 1] ?? ' ') && !word.test(text[i + name.length] ?? ' ')) return i;
  }
  return -1;
}

/**
 * The actions with a `say` on each create_shape, placed right after `type` (so that it is written before the id),
 * `nameOf` giving the name the request spells for a shape. A shape whose name the request does not spell out from the
 * point the walk has reached (an abbreviated label, a name used before its turn) says "" and leaves the walk where it
 * was. Other actions are returned as they are.
 */
export function walkRequest<A extends { type: string }>(actions: A[], prompt: string, nameOf: (a: A) => string | undefined): A[] {
  const lower = prompt.toLowerCase();
  let cursor = 0;
  return actions.map((a) => {
    if (a.type !== 'create_shape') return a;
    const name = nameOf(a)?.toLowerCase() ?? '';
    const at = name ? wordIndex(lower, name, cursor) : -1;
    let say = '';
    if (at >= 0) {
      say = prompt.slice(cursor, at + name.length);
      cursor = at + name.length;
    }
    const { type, ...rest } = a;
    return { type, say, ...rest } as unknown as A;
  });
}
