// Decisions in a prompt: the question node (a quoted or <bracketed> name in a sentence about a decision, or what
// follows "decision:"), and the branches "if yes, go to A, then B", "yes -> A", "the arrow labelled no leads to C",
// each a chain hanging off the question.

const DECISION_WORDS = /\b(?:decisions?|diamonds?|questions?|conditions?|yes\/no|branch(?:es)?|choice)\b/i;
const DECLARED = /\b(?:decision|diamond|question|condition)\b[^:]{0,20}:\s*(.+)$/i;
const TOKEN = /\uE000\d+\uE001/;
const BRANCH_WORD = String.raw`(?:yes|no|true|false)\b(?!\s*\/)`;
/** Where a sentence holding two branches divides: "..., and the arrow labelled no leads to C", "yes -> A, no -> B". */
export const BRANCH_SPLIT = new RegExp(
  String.raw`,?\s+(?:and|but)\s+(?=(?:if\s+|the\s+\w+\s+(?:labell?ed|marked)\s+)?${BRANCH_WORD})|,\s*(?=if\s+${BRANCH_WORD}|if\s+(?:so|not)\b|otherwise\b|else\b)` +
    String.raw`|(?:,\s*|\s+)(?=${BRANCH_WORD}\s*(?:-+>|=+>|→|:))`,
  'i',
);
const BRANCH = new RegExp(
  String.raw`^(?:and\s+|but\s+)?(?:(?:if\s+(so|not)|(otherwise|else))\b|(?:if\s+(?:the\s+answer\s+is\s+|it\s+is\s+)?|on\s+|when\s+)?(?:the\s+)?(?:(?:arrow|branch|edge|path|answer)\s+(?:labell?ed\s+|marked\s+)?)?(${BRANCH_WORD}))\s*[,:]?\s*` +
    String.raw`(?:(?:then\s+)?(?:go(?:es)?|leads?|points?|continues?|moves?|proceeds?|flows?)\s+(?:on\s+)?(?:to|into)\s+|-+>\s*|=+>\s*|→\s*)?(.+)$`,
  'i',
);
/** A question the prompt asks of the process, not of the reader ("Is the user logged in?"). */
const QUESTION = /^(?!(?:can|could|would|will|may|might|please|do|does|how|what|why|where|who)\b).{3,80}\?$/i;

export interface Branch {
  answer: 'yes' | 'no';
  /** The text naming the branch's steps, in order. */
  rest: string;
}

/** The decision node a prompt names, as the text that names it (a quote token or a phrase), or undefined. */
export function findDecision(clauses: readonly string[]): string | undefined {
  for (const c of clauses) {
    const t = TOKEN.exec(c);
    if (t && DECISION_WORDS.test(c)) return t[0];
  }
  for (const c of clauses) {
    const d = DECLARED.exec(c.replace(/\s*\([^)]*\)/g, ''));
    if (d) return d[1];
  }
  return clauses.find((c) => QUESTION.test(c.trim()));
}

export function parseBranch(clause: string): Branch | undefined {
  const m = BRANCH.exec(clause.trim());
  if (!m || !m[4].trim()) return undefined;
  const answer = (m[1] ?? m[2] ?? m[3]).toLowerCase();
  return { answer: answer === 'so' || answer === 'true' ? 'yes' : answer === 'yes' ? 'yes' : 'no', rest: m[4] };
}

/** A prompt reads as a decision when it holds branch clauses for both answers. */
export function hasBothBranches(clauses: readonly string[]): boolean {
  const answers = new Set<string>();
  for (const c of clauses) for (const part of c.split(BRANCH_SPLIT)) {
    const b = parseBranch(part);
    if (b) answers.add(b.answer);
  }
  return answers.has('yes') && answers.has('no');
}
