// Which entity a clause names when a list or chain step is a whole sentence ("the user uploads a file", "it lands in
// storage"): the noun phrase before its verb, or, where that is a pronoun, the last noun phrase after it. Part-of-speech
// tags come from wink-nlp's English model, loaded on first use (about 160 ms), so that a command that never meets such
// a step does not pay for it.
import { createRequire } from 'node:module';
import type { ItemToken, WinkMethods } from 'wink-nlp';

let nlp: WinkMethods | undefined;

function tagger(): WinkMethods {
  if (!nlp) {
    const require = createRequire(import.meta.url);
    const winkNLP = require('wink-nlp') as (model: unknown) => WinkMethods;
    nlp = winkNLP(require('wink-eng-lite-web-model'));
  }
  return nlp;
}

const NOUN_RUN = new Set(['NOUN', 'PROPN', 'ADJ', 'NUM']);

/** The subject (or, after a pronoun, the last object) of a clause of three or more words; null when the tags show no
 *  noun phrase before a verb followed by a function word, and the phrase is kept as written. */
export function clauseSubject(phrase: string): string | null {
  const n = tagger();
  const doc = n.readDoc(phrase);
  const words: string[] = [];
  const tags: string[] = [];
  doc.tokens().each((t: ItemToken) => {
    words.push(t.out());
    tags.push(t.out(n.its.pos) as string);
  });
  const verb = tags.findIndex((t, i) => i > 0 && t === 'VERB');
  // A clause goes on with a function word ("uploads a file", "checks it", "lands in storage"); a name whose word the
  // tagger takes for a verb ("Delsand Semzairk Get", "Foutbre Vex 1") does not.
  if (verb < 0 || !tags.slice(verb + 1).some((t) => t === 'DET' || t === 'PRON' || t === 'ADP')) return null;
  const before = tags.slice(0, verb).map((t, i) => ({ t, w: words[i] })).filter(({ t }) => t !== 'DET');
  if (before.length > 0 && before.every(({ t }) => NOUN_RUN.has(t)) && before.some(({ t }) => t === 'NOUN' || t === 'PROPN')) {
    return before.map(({ w }) => w).join(' ');
  }
  if (before.length === 1 && before[0].t === 'PRON') {
    let end = tags.length;
    while (end > verb && !(tags[end - 1] === 'NOUN' || tags[end - 1] === 'PROPN')) end--;
    let start = end;
    while (start > verb + 1 && NOUN_RUN.has(tags[start - 1])) start--;
    if (end > start) return words.slice(start, end).join(' ');
  }
  return null;
}
