// Text handling for prompt-to-spec extraction: quoted names kept whole, label requests told apart from names,
// prompts cut into prose sentences and bullet blocks, and phrases trimmed to the entity they name.
import { CHATTER, CHATTER_TAIL } from './chatter.ts';
import { clauseSubject } from './clauses.ts';

/** A quoted name stands in the text as this token until the spec is built, so no rule splits or trims inside it. */
const QUOTE_OPEN = '\uE000';
const QUOTE_CLOSE = '\uE001';
const QUOTED = /"([^"\n]{1,80})"|“([^”\n]{1,80})”|<(?![-=\s])([^<>\n]{1,80}?)(?<![-=\s])>/g;
const TOKEN = /\uE000(\d+)\uE001/;
const TOKENS = /\uE000(\d+)\uE001/g;

/** Words that make the quotes of a sentence arrow labels ("should say", "Label the arrow ...", "Put ... on"). */
const LABEL_SENTENCE = /\b(?:label\w*|says?|reads?|captions?|caption(?:ed)?|marked|put)\b/i;
/** What a label request wraps around the edge it names: "should say", "Label the arrow", "Put ... on the". */
const LABEL_WORDS =
  /\b(?:(?:should|must|will|can)\s+)?(?:say|says|read|reads|be\s+labell?ed|labell?ed|captioned|marked)\b|\b(?:label|caption)(?:\s+(?:these|those|the|this|each|both))?(?:\s+(?:two|three|four))?\s+(?:arrows?|edges?|branches|links?|lines?)\b|\barrow\s+labels?\b|^\s*put\b[^\uE000-\uE001]*?(?:\uE000\d+\uE001\s*)?\bon\s+(?:the\s+)?/gi;

export interface Quoted {
  text: string;
  names: string[];
}

/** Replaces quoted spans with tokens; the caller decides per sentence whether they are names or labels. */
export function protectQuotes(prompt: string): Quoted {
  const names: string[] = [];
  const text = prompt.replace(QUOTED, (_m, a: string | undefined, b: string | undefined, c: string | undefined) => {
    names.push((a ?? b ?? c ?? '').trim());
    return `${QUOTE_OPEN}${names.length - 1}${QUOTE_CLOSE}`;
  });
  return { text, names };
}

export function restoreQuotes(s: string, names: readonly string[]): string {
  return s.replace(TOKENS, (_m, i: string) => names[Number(i)] ?? '');
}

export const hasQuote = (s: string) => TOKEN.test(s);

/** A label request ("The arrow from A to B should say "x"") keeps only the edge it names: "from A to B". */
export function stripLabelRequest(sentence: string): string {
  if (!hasQuote(sentence) || !LABEL_SENTENCE.test(sentence)) return sentence;
  return sentence.replace(LABEL_WORDS, ' ').replace(TOKENS, ' ').replace(/\s+([,.;:!?])/g, '$1').replace(/\s{2,}/g, ' ').trim();
}

/** Whether a sentence only asks for labels on arrows it does not name ("Label the two branches yes and no"). */
export const isLabelOnly = (s: string) => /^\s*(?:please\s+)?label\b/i.test(s) && !/\bfrom\b|->|→|=>/.test(s);

export interface BulletItem {
  depth: number;
  text: string;
  numbered: boolean;
}

export interface BulletBlock {
  /** The prose line just before the list, when it introduces it ("... with these steps in order:"). */
  lead: string;
  items: BulletItem[];
}

export type Part = { kind: 'sentence'; text: string } | { kind: 'block'; block: BulletBlock };

const BULLET = /^(\s*)(?:[-*•]|(\d+)[.)])\s+(.+?)\s*$/;
/** Sentence ends: after . ! ? before any letter (prompts may be all lower case), at line breaks and semicolons. */
/** A ? inside a name followed by its label or the list's next item ("OK? \"notifies\", ...") ends no sentence. */
const SENTENCE_SPLIT = /(?<=[.!])\s+|(?<=\?)\s+(?![\uE000,])|\n+|;\s*/;
const FIRST_SENTENCE = /^(.+?[.!?])\s+([A-Za-z].*)$/;

/** "in order: lint; test; build": semicolons that separate short list items, not clauses. */
const SEMICOLON_LIST = /:\s*((?:[^;:.!?\n]{1,40};\s*){2,}[^;:.!?\n]{1,40})(?=[.!?]|$)/gm;

export function splitSentences(text: string): string[] {
  return text
    .replace(SEMICOLON_LIST, (m: string, list: string) => (list.split(';').every((i) => i.trim().split(/\s+/).length <= 4) ? m.replace(/;/g, ',') : m))
    .split(SENTENCE_SPLIT)
    .map((s) => s.trim())
    .filter(Boolean);
}

/** "steps: 1. A 2. B 3. C" and "Step 1: A. Step 2: B.": an enumeration written on one line. */
const INLINE_NUMBERED = /(?:^|[\s:])\(?1[.):]\s+\S[^\n]*?\s\(?2[.):]\s+\S/;
const INLINE_NUMBER = /(?:^|(?<=[\s:,;]))\s*\(?(\d{1,2})[.):]\s+(?=\S)/g;
const STEP_NUMBERED = /\bstep\s+1\s*[:.)-]\s*\S[^\n]*\bstep\s+2\s*[:.)-]/i;
const STEP_NUMBER = /(?:^|\s+)step\s+(\d{1,2})\s*[:.)-]\s*/gi;

/** Each line holding an inline enumeration becomes its lead line and one numbered bullet per step. */
function unfoldEnumerations(text: string): string {
  return text
    .split('\n')
    .map((line) => {
      if (STEP_NUMBERED.test(line)) return line.replace(STEP_NUMBER, (_m, n: string) => `\n${n}. `);
      if (!INLINE_NUMBERED.test(line) || BULLET.test(line)) return line;
      return line.replace(INLINE_NUMBER, (_m, n: string) => `\n${n}. `).replace(/[,;]\s*(?=\n)/g, '');
    })
    .join('\n');
}

/** Prose sentences and bullet blocks in text order; a sentence written on a bullet's line after the item is prose. */
export function segment(raw: string): Part[] {
  const text = unfoldEnumerations(raw);
  const parts: Part[] = [];
  let prose: string[] = [];
  let block: BulletBlock | undefined;
  const flush = () => {
    for (const s of splitSentences(prose.join('\n'))) parts.push({ kind: 'sentence', text: s });
    prose = [];
  };
  for (const line of text.split('\n')) {
    const b = BULLET.exec(line);
    if (!b) {
      block = undefined;
      if (line.trim()) prose.push(line);
      continue;
    }
    if (!block) {
      const lead = prose.length ? prose[prose.length - 1].trim() : '';
      flush();
      block = { lead: /:\s*$/.test(lead) ? lead : '', items: [] };
      parts.push({ kind: 'block', block });
    }
    let item = b[3];
    const tail = FIRST_SENTENCE.exec(item);
    if (tail) {
      item = tail[1];
      prose.push(tail[2]);
    }
    block.items.push({ depth: b[1].replace(/\t/g, '    ').length, text: item, numbered: b[2] !== undefined });
  }
  flush();
  return parts;
}

const LEAD_WORDS =
  /^(?:(?:and|or|then|finally|next|also|like|to|into|onto|with|from|at|via|through|(?:draw|show|make|create|sketch|render|illustrate|depict|visualize)(?=\s+(?:[a-z]|A\s|An\s|The\s))|please|pls|hey|hi|ok|okay|so|basically|just|well|um|(?:can|could|would|will)\s+(?:you|u)|there(?:'s|\s+is|\s+are)(?:\s+also)?|an?\s+single|a|an|the|some|one(?!\s+of\b)|our|my|their|its|your|(?:back|around|on|goes|go)\s+to|goes\s+(?:through|via))\s+)+/i;
/** The same lead words without the drawing verbs: a step may itself be an imperative ("Make coffee", "Show results"). */
const ITEM_LEAD_WORDS = new RegExp(LEAD_WORDS.source.replace(String.raw`(?:draw|show|make|create|sketch|render|illustrate|depict|visualize)(?=\s+(?:[a-z]|A\s|An\s|The\s))|`, ''), 'i');
const TRAIL_WORDS =
  /(?:\s+(?:too|also|again|instead|first|directly|as well|as needed|each|both|all|respectively|arrows?|is|are|should|will|looks? like|in the middle|in the centre|in the center|at the top|at the root|at the bottom|at the centre|at the center))+$/i;
/** "the store step": a generic noun after a name, lower case only ("G1 Phase" is a name). */
const TRAIL_NOUN = /\s+(?:step|stage|phase|box|node)$/;
const TRAIL_PUNCT = /[\s.,;:!?"'`*_)\]]+$/;
const LEAD_PUNCT = /^[\s"'`*_([,]+/;
const PARENS = /\s*\([^)]*\)/g;
/** A quantified phrase ("each item", "every component in a layer") talks about entities, it does not name one. */
const QUANTIFIED = /^(?:each|every|all|any|both)\b(?!\s+of\b)/i;
const EACH_OF = /^(?:(?:each|every|all|any|both|one)\s+of\s+(?:the\s+)?(?:following\s*:?\s*)?)/i;
/** A joining word left alone where a list's last item was cut off ("..., fix bugs, and go back to ..."). */
const LONE_JOINER = /^(?:and|or|then|also|so|but|nor|plus)$/i;
/** Words that answer a decision, never an entity of their own. */
const ANSWER = /^(?:yes|no|true|false|yes\/no)$/i;
const MAX_ENTITY_WORDS = 6;

/**
 * Trims a phrase to the entity it names, or '' when it is not a plausible name. A list item (`item`) is a name as
 * written: a step may start with a verb ("Make coffee") and end in a noun ("Pack box").
 */
export function cleanEntity(phrase: string, item = false): string {
  const quoted = TOKEN.exec(phrase);
  if (quoted) return quoted[0];
  let s = phrase.replace(PARENS, '');
  const colon = s.lastIndexOf(':');
  if (colon !== -1) s = s.slice(colon + 1);
  s = s.replace(LEAD_PUNCT, '').replace(TRAIL_PUNCT, '');
  // "the store step" is the store; "edge box" without an article is a name.
  const articled = /^(?:the|a|an)\s/i.test(s);
  s = s.replace(item ? ITEM_LEAD_WORDS : LEAD_WORDS, '').replace(EACH_OF, '').replace(TRAIL_PUNCT, '').replace(TRAIL_WORDS, '').replace(TRAIL_PUNCT, '');
  if (!item && articled) s = s.replace(TRAIL_NOUN, '');
  s = s.replace(CHATTER_TAIL, '');
  if (QUANTIFIED.test(s) || ANSWER.test(s) || LONE_JOINER.test(s) || CHATTER.test(s)) return '';
  let words = s.split(' ').filter(Boolean);
  // A sentence where a name was expected ("then the scanner checks it"): the rules' verb lists do not know every verb.
  if (!item && words.length >= 3) {
    const subject = clauseSubject(words.join(' '));
    if (subject) words = subject.split(' ');
  }
  if (words.length === 0 || words.length > MAX_ENTITY_WORDS) return '';
  return words.join(' ');
}

const LIST_SPLIT = /\s*,\s*(?:and\s+|or\s+|then\s+)?|\s+(?:and|or|&|\+)\s+/i;

export function splitList(text: string): string[] {
  return text.split(LIST_SPLIT).map((p) => cleanEntity(p)).filter(Boolean);
}

export const removeParens = (s: string) => s.replace(PARENS, '');

// Misspelt structure words (not names: those stay as the user wrote them), so that the rules still see "then", "from",
// "pipeline". Only a swap of two neighbouring letters, or one letter left out of a word of five or more, and never
// where the slip is itself a word ("them" is not "then", "fist" is not "first"); a few short slips are listed.
const STRUCTURE_WORDS = ['then', 'first', 'show', 'draw', 'sketch', 'arrow', 'arrows', 'pipeline', 'workflow', 'process', 'sequence', 'connects', 'finally', 'through', 'diagram', 'followed', 'flowchart'];
const REAL_WORDS = ['fist', 'though', 'trough', 'firs', 'connect', 'ketch'];
const SLIPS: Record<string, string> = { teh: 'the', hte: 'the', thn: 'then', fro: 'from', frmo: 'from', fomr: 'from' };
/** The shorthands of casual typing, written in lower case ("Truck N3" keeps its N). */
const SHORTHANDS = new Map(Object.entries({ thru: 'through', theres: "there's", thats: "that's", em: 'them', n: 'and' }));
const SLIP_OF = new Map<string, string>(Object.entries(SLIPS));
for (const w of STRUCTURE_WORDS) {
  for (let i = 0; i + 1 < w.length; i++) SLIP_OF.set(w.slice(0, i) + w[i + 1] + w[i] + w.slice(i + 2), w);
  if (w.length >= 5) for (let i = 0; i < w.length; i++) SLIP_OF.set(w.slice(0, i) + w.slice(i + 1), w);
}
for (const w of [...STRUCTURE_WORDS, ...REAL_WORDS]) SLIP_OF.delete(w);
/** "form the app to the gateway": "form" is a word of its own, read as "from" only before a "to" in the same sentence. */
const FORM_FROM = /\bform(?=\s+[^.!?\n]*?\s(?:to|into)\s)/g;
/** "writes too the cache": "too" before an article is "to". */
const TOO_TO = /\btoo(?=\s+(?:the|a|an)\s)/gi;

export function fixStructureTypos(text: string): string {
  return text
    .replace(/[\p{L}\p{N}]+/gu, (word) => {
      const shorthand = SHORTHANDS.get(word);
      if (shorthand !== undefined) return shorthand;
      const fixed = SLIP_OF.get(word.toLowerCase());
      if (fixed === undefined) return word;
      return word[0] === word[0].toUpperCase() ? fixed[0].toUpperCase() + fixed.slice(1) : fixed;
    })
    .replace(FORM_FROM, 'from')
    .replace(TOO_TO, 'to');
}
