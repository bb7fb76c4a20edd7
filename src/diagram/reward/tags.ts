// Part-of-speech tags for prompt-to-spec extraction: wink-nlp's English model (loaded on first use, about 160 ms, so
// that a command that never meets prose does not pay for it), and repairs of the tags where its lite model errs on the
// shapes diagram requests are written in.
// The repairs are hand-written because the lite model tags a verb written after a compound noun as a noun more often
// than not ("the backend service stores/NOUN its data", "the form posts/NOUN to the api"), and a made-up name's word as
// a verb ("Ad Spend Report"); no library here tags such requests better (a probe of wink-nlp alone read the
// hand-written dev set at edge F1 0.24).
import { createRequire } from 'node:module';
import type { ItemToken, ItsFunction, WinkMethods } from 'wink-nlp';

let nlp: WinkMethods | undefined;

function tagger(): WinkMethods {
  if (!nlp) {
    const require = createRequire(import.meta.url);
    const winkNLP = require('wink-nlp') as (model: unknown) => WinkMethods;
    nlp = winkNLP(require('wink-eng-lite-web-model'));
  }
  return nlp;
}

export interface Token {
  word: string;
  lower: string;
  lemma: string;
  tag: string;
}

export const NOUN_RUN = new Set(['NOUN', 'PROPN', 'ADJ', 'NUM']);
export const isNoun = (t: Token | undefined) => t !== undefined && (t.tag === 'NOUN' || t.tag === 'PROPN');
/** What may follow a verb directly: an article, a pronoun or a preposition (not "of": "the flow of data"). */
export const opensObject = (t: Token | undefined) =>
  t !== undefined && (t.tag === 'DET' || t.tag === 'PRON' || (t.tag === 'ADP' && t.lower !== 'of') || t.lower === 'back');
export const RELATIVE = new Set(['which', 'that', 'who']);
/** A word in -ing that is a participle ("boosting", "reading"), not a verb of its own ending so ("bring", "sing"). */
export const isParticiple = (t: Token) => t.lower.endsWith('ing') && t.lemma !== t.lower;
const CAPITALISED = /^[A-Z][\w-]*$/;
export const PARTICLES = new Set(['in', 'out', 'up', 'down', 'off', 'back', 'over', 'through']);
/** Sentence boundaries inside a text the tagger reads whole. */
export const WORD_BOUNDARY = new Set([';', ':', '.', '!', '?']);
export const DRAW_VERBS = new Set(['draw', 'show', 'make', 'create', 'sketch', 'build', 'render', 'design', 'add', 'put', 'label', 'depict', 'illustrate', 'picture', 'visualize']);
/** A verb form a noun tag may hide: "stores", "posts", "replicating"; a bare "call" only after a plural ("clients call"). */
const VERB_FORM = /^[a-z]{2,}(?:[^s]s|ies|ing)$/;

/** wink-nlp's tags of a text's words, words joined by hyphens made one. */
function tagged(text: string): Token[] {
  const n = tagger();
  // wink-nlp's typings give the lemma helper the signature of a document-level one; it is a token's, like pos.
  const lemma = n.its.lemma as unknown as ItsFunction<string>;
  const out: Token[] = [];
  let joinNext = false;
  n.readDoc(text)
    .tokens()
    .each((t: ItemToken) => {
      const word = t.out();
      const spaced = t.out(n.its.precedingSpaces) !== '';
      const last = out[out.length - 1];
      // "check-in desk", "End-to-End Tests": words joined by hyphens are one word of a name.
      if (last && !spaced && (word === '-' || joinNext)) {
        last.word += word;
        last.lower = last.word.toLowerCase();
        last.lemma = last.lower;
        last.tag = CAPITALISED.test(last.word) ? 'PROPN' : 'NOUN';
        joinNext = word === '-';
        return;
      }
      joinNext = false;
      out.push({ word, lower: word.toLowerCase(), lemma: t.out(lemma).toLowerCase(), tag: t.out(n.its.pos) as string });
    });
  return out;
}

/** A request opens with its verb, whatever the tagger makes of it. */
function requestVerb(out: Token[]): void {
  // "Show employee offboarding as ...": a request opens with its verb, whatever the tagger makes of it.
  if (out.length > 1 && DRAW_VERBS.has(out[0].lower)) out[0].tag = 'VERB';
}

/** Acronyms the tagger took for an interjection or a pronoun ("the ER/INTJ", "IT/PRON notifies ...") are names, in a text
 *  that is not all capitals. */
function acronyms(out: Token[]): void {
  if (!out.some((t) => /[a-z]/.test(t.word))) return;
  for (const t of out) if (/^[A-Z][A-Z0-9]+$/.test(t.word) && (t.tag === 'INTJ' || t.tag === 'PRON')) t.tag = 'PROPN';
}

/** Words that open a clause of time or condition; capitalised at a sentence's start they are no word of a name. */
const SUBORDINATORS = new Set(['when', 'whenever', 'if', 'once', 'unless', 'while', 'until', 'after', 'before']);

/** Capitalised words in a row are one name. */
function nameRuns(out: Token[]): void {
  // "Ad Spend Report", "Winter Break": capitalised words in a row are one name, whatever their tags.
  for (let i = 0; i + 1 < out.length; i++) {
    // ("When Stripe sends a webhook": the sentence's "When" opens a clause.)
    if (SUBORDINATORS.has(out[i].lower) && (i === 0 || WORD_BOUNDARY.has(out[i - 1].word))) {
      if (out[i].tag === 'PROPN' || out[i].tag === 'NOUN') out[i].tag = 'SCONJ';
      continue;
    }
    if (!CAPITALISED.test(out[i].word) || !CAPITALISED.test(out[i + 1].word)) continue;
    let j = i;
    // ... up to a capitalised verb that opens a clause of lower-case words: "... Electrical Engineering Keep it simple".
    const opensSentence = (k: number) => out[k].tag === 'VERB' && opensObject(out[k + 1]) && out[k + 1].word === out[k + 1].lower;
    while (j < out.length && CAPITALISED.test(out[j].word) && !(j > i && opensSentence(j))) out[j++].tag = 'PROPN';
    i = j;
  }
}

/** Whether the words before token `i` are "each of", "one of" or "all of" and a noun phrase. */
function eachOfBefore(out: Token[], i: number): boolean {
  let k = i - 1;
  while (k >= 0 && (NOUN_RUN.has(out[k].tag) || out[k].tag === 'DET') && !/^(?:each|every)$/.test(out[k].lower)) k--;
  return k >= 1 && out[k].lower === 'of' && /^(?:each|one|all)$/.test(out[k - 1].lower);
}

/** Verbs the tagger took for nouns, adverbs or adjectives after a noun phrase, a relative pronoun or "and". */
function verbsAfterNouns(out: Token[]): void {
  for (let i = 1; i < out.length; i++) {
    const t = out[i];
    // "the chat/VERB app": a word between an article and a noun is part of the noun phrase.
    if (t.tag === 'VERB' && (out[i - 1].tag === 'DET' || out[i - 1].tag === 'NUM' || out[i - 1].lower === 'of') && isNoun(out[i + 1])) t.tag = 'NOUN';
    // ("..., which forward/ADV to the web servers": after "which", a word before a preposition is its verb.)
    if ((t.tag === 'ADV' || t.tag === 'NOUN') && RELATIVE.has(out[i - 1].lower) && ((out[i + 1]?.tag === 'ADP' && out[i + 1].lower !== 'of') || out[i + 1]?.lower === 'back')) t.tag = 'VERB';
    // ("to a switch/VERB in the office": after an article, before a preposition or the clause's end, a noun.)
    // (And after an article and a modifier: "to the fast/ADV queue/VERB and ...".)
    const modified = i >= 2 && /^(?:ADV|ADJ)$/.test(out[i - 1].tag) && /^(?:a|an|the)$/.test(out[i - 2].lower);
    if (t.tag === 'VERB' && (/^(?:a|an|the)$/.test(out[i - 1].lower) || modified) && (out[i + 1] === undefined || /^(?:ADP|PUNCT|CCONJ)$/.test(out[i + 1].tag))) {
      t.tag = 'NOUN';
      if (modified) out[i - 1].tag = 'ADJ';
    }
    // ("bob forwards/ADV it to carol": an adverb tag on a verb form before an object.)
    if (t.tag === 'ADV' && /^[a-z]{3,}[^s]s$/.test(t.lower) && isNoun(out[i - 1]) && opensObject(out[i + 1])) t.tag = 'NOUN';
    if (t.tag !== 'NOUN' && t.tag !== 'PROPN' && t.tag !== 'ADJ') continue;
    if (t.word !== t.lower) continue;
    // ("each of the 3 talks/NOUN to ...", "each of the 3 night nurses gives/NOUN report to ...": after "each of" and
    // its things, the verb.)
    if (/^[a-z]{3,}[^s]s$/.test(t.lower) && (out[i - 1].tag === 'NUM' || /s$/.test(out[i - 1].lower)) && eachOfBefore(out, i)) {
      t.tag = 'VERB';
      continue;
    }
    // ("the mouse somehow chases/NOUN the dog": an adverb between a subject and its verb.)
    if (out[i - 1].tag === 'ADV' && isNoun(out[i - 2]) && /^[a-z]{3,}[^s]s$/.test(t.lower) && opensObject(out[i + 1])) {
      t.tag = 'VERB';
      continue;
    }
    const prev = out[i - 1];
    const next = out[i + 1];
    const sForm = /^[a-z]{2,}(?:[^s]s|ies)$/.test(t.lower);
    const afterRelative = RELATIVE.has(prev.lower) && sForm;
    // "takes text from the app and returns it": a verb joined to an earlier one.
    // (After a comma too, before a preposition: "It starts in the House, moves/NOUN to the Senate".)
    const joined = (prev.tag === 'CCONJ' || (prev.word === ',' && next?.tag === 'ADP' && next.lower !== 'of')) && sForm && opensObject(next) && out.slice(0, i).some((x) => x.tag === 'VERB');
    let afterNoun = false;
    // ("The patient/ADJ books ...": an adjective after an article stands for a noun.)
    if ((isNoun(prev) || (prev.tag === 'ADJ' && out[i - 2]?.tag === 'DET')) && startsClause(out, i - 1, isParticiple(t))) {
      // After a plural, a verb has no -s ("the parsers store links in the index", "customers place orders").
      const bare = /^[a-z]+s$/.test(prev.lower) && /^[a-z]{3,}$/.test(t.lower) && !/s$/.test(t.lower);
      // ("extracts sales from", "assigns tasks to": a verb form, its bare object and a preposition.)
      const beforeObject = /^[a-z]{3,}[^s]s$/.test(t.lower) && isNoun(next) && out[i + 2]?.tag === 'ADP' && out[i + 2].lower !== 'of';
      // ("five sensors feed/NOUN one gateway": a plural, a bare word and a counted object.)
      const counted = next?.tag === 'NUM' && isNoun(out[i + 2]);
      afterNoun = (opensObject(next) && (VERB_FORM.test(t.lower) || bare)) || (bare && (isNoun(next) || counted)) || beforeObject;
    }
    // "the router hooked/ADJ up to the modem", "a modem connected to a router": a participle joining a noun to a
    // preposition's object.
    const participle = isNoun(prev) && /^[a-z]{3,}ed$/.test(t.lower) && next?.tag === 'ADP' && next.lower !== 'of';
    if (afterRelative || joined || afterNoun || participle) t.tag = 'VERB';
  }
}

/** Participles after "is" the tagger took for nouns, and "in turn"; a verb after a subject's "all" or "both". */
function passiveParticiples(out: Token[]): void {
  for (let i = 1; i + 1 < out.length; i++) {
    const t = out[i];
    // ("Main Stage, Forest Stage and the Tent all radio/NOUN into production control".)
    if (i >= 2 && t.tag === 'NOUN' && t.word === t.lower && /^(?:all|both)$/.test(out[i - 1].lower) && isNoun(out[i - 2]) && out[i + 1].tag === 'ADP' && out[i + 1].lower !== 'of') t.tag = 'VERB';
    // ("wood is sawn/NOUN into planks": a participle's form after a form of "be", before a preposition.)
    // (An adverb between: "it is then dosed/ADJ in the tank".)
    const aux = out[i - 1].tag === 'ADV' && i >= 2 ? out[i - 2] : out[i - 1];
    const be = aux.tag === 'AUX' && /^(?:is|are|was|were|be|been|being)$/.test(aux.lower);
    if (be && (t.tag === 'NOUN' || t.tag === 'ADJ') && /^[a-z]{2,}(?:ed|en|wn)$/.test(t.lower) && out[i + 1].tag === 'ADP' && out[i + 1].lower !== 'of') t.tag = 'VERB';
    // ("which are in turn eaten by frogs": "in turn" says when, like an adverb.)
    if (t.lower === 'in' && out[i + 1].lower === 'turn') {
      t.tag = 'ADV';
      out[i + 1].tag = 'ADV';
    }
  }
}

/** An adjective between an article and a verb is the noun. */
function articledNouns(out: Token[]): void {
  // ("The patient/ADJ books ...": an adjective between an article and a verb is the noun.)
  for (let i = 1; i + 1 < out.length; i++) if (out[i].tag === 'ADJ' && out[i - 1].tag === 'DET' && out[i + 1].tag === 'VERB') out[i].tag = 'NOUN';
}

/** The verbs of terse clauses without articles. */
function terseVerbs(out: Token[]): void {
  // Terse clauses without a verb: "app reads/NOUN database", "visitor fills/NOUN form": the -s word between a clause's
  // first noun and its next is the verb. And "writes result to/PART cache/VERB": a last word after "to" is its object.
  for (let start = 0; start < out.length; ) {
    let end = start;
    while (end < out.length && out[end].word !== ',' && out[end].tag !== 'CCONJ' && !WORD_BOUNDARY.has(out[end].word)) end++;
    const clause = out.slice(start, end);
    // ("ok so alice emails bob": words that open a reply are no part of the clause.)
    while (clause.length && (clause[0].tag === 'INTJ' || clause[0].tag === 'ADV')) clause.shift();
    const k = clause.findIndex((t, j) => j > 0 && t.tag === 'NOUN' && /^[a-z]{3,}[^s]s$/.test(t.word) && isNoun(clause[j - 1]) && isNoun(clause[j + 1]));
    // (Only a clause of its own, at the start or after a comma: "... to luscaind and bot gronddrais terkpo" goes on
    // naming objects.)
    // (A whole sentence of three nouns is more likely a title: "gaxpur styszendzis structure.")
    const own = (start === 0 || out[start - 1].word === ',') && (start > 0 || (end < out.length && !WORD_BOUNDARY.has(out[end].word)));
    if (own && k > 0 && k <= 2 && !clause.some((t) => t.tag === 'VERB' || t.tag === 'AUX' || t.tag === 'DET') && clause.slice(0, k).every(isNoun)) clause[k].tag = 'VERB';
    start = end + 1;
  }
}

/** A last word after "to" is its object. */
function lastWordAfterTo(out: Token[]): void {
  for (let i = 0; i + 1 < out.length; i++) {
    const after = out[i + 2];
    if (out[i].lower === 'to' && out[i].tag === 'PART' && out[i + 1].tag === 'VERB' && (!after || after.tag === 'PUNCT' || after.tag === 'CCONJ')) {
      out[i].tag = 'ADP';
      out[i + 1].tag = 'NOUN';
    }
  }
}

/** A verb and its object the tagger swapped. */
function swappedVerbObject(out: Token[]): void {
  // "the scraper dumps/NOUN stuff/VERB into s3": the tagger swapped a verb and its object (after "the" and one noun:
  // "two web servers sit behind ..." is a plural and its verb).
  for (let i = 2; i + 2 < out.length; i++) {
    const [a, b, c] = [out[i], out[i + 1], out[i + 2]];
    // ("each broker reports/NOUN fills/VERB to ...": after "each" the subject is one, and its object may be plural.)
    const one = /^(?:each|every)$/.test(out[i - 2].lower);
    if (out[i - 2].tag === 'DET' && isNoun(out[i - 1]) && !/s$/.test(out[i - 1].lower) && a.tag === 'NOUN' && /^[a-z]{3,}[^s]s$/.test(a.word) && b.tag === 'VERB' && (one || !/s$/.test(b.lower)) && c.tag === 'ADP') {
      a.tag = 'VERB';
      b.tag = 'NOUN';
    }
    // ("the web servers/VERB all talk/NOUN to ...": a plural, "all", and the verb.)
    if (/^(?:both|all|each)$/.test(out[i - 1].lower) && out[i - 2].tag === 'VERB' && /s$/.test(out[i - 2].lower) && isNoun(out[i - 3]) && a.tag === 'NOUN' && b.tag === 'ADP') {
      out[i - 2].tag = 'NOUN';
      a.tag = 'VERB';
    }
    // "the user service and the order service both publish/NOUN events/VERB to a bus": after a plural subject's
    // "both", "all" or "each" (or "all of them"), a verb and its plural object.
    const quantified = (isNoun(out[i - 2]) && /^(?:both|all|each)$/.test(out[i - 1].lower)) || (out[i - 2].lower === 'of' && out[i - 1].lower === 'them');
    if (quantified && a.tag === 'NOUN' && !/s$/.test(a.lower) && b.tag === 'VERB' && /s$/.test(b.lower) && (c.tag === 'ADP' || c.word === ',')) {
      a.tag = 'VERB';
      b.tag = 'NOUN';
    }
  }
}

/** Items of a list of names are names, whatever their words' tags. */
function listItemNames(out: Token[]): void {
  // "..., ad spend report, hr system, ...": a list item between commas is a name, whatever its words' tags.
  const commas = out.filter((t) => t.word === ',').length;
  for (let i = -1; i < out.length; i++) {
    // Items of a list of names, which commas separate ("nodes: pas pol vensail, taimdoumpe, dasha": the text's start
    // opens one too).
    if (i === -1 ? commas < 2 : out[i].word !== ',') continue;
    let j = i + 1;
    while (j < out.length && (NOUN_RUN.has(out[j].tag) || out[j].tag === 'VERB')) j++;
    const item = out.slice(i + 1, j);
    // An item ends at the next comma or joiner, or the last one (after ", and") at the end of the sentence.
    const last = i >= 0 && (out[i - 1]?.word === ',' || out[i + 1]?.tag === 'CCONJ') && (j === out.length || WORD_BOUNDARY.has(out[j].word));
    // (A joiner before a verb joins clauses, not names: "app reads database and writes result to cache".)
    const joinsNames = out[j]?.tag === 'CCONJ' && out[j - 1]?.word !== ',' && out[j + 1]?.tag !== 'VERB';
    const closes = last || (out[j] !== undefined && (out[j].word === ',' || joinsNames));
    if (closes && item.length >= 2 && item.filter((t) => t.tag === 'VERB').length === 1 && item.some(isNoun) && !(i === -1 && pluralClause(item, out)) && !clauseBetweenClauses(out, i, j)) for (const t of item) t.tag = 'NOUN';
  }
}

/** "Feature branch merges into main, main triggers CI, CI publishes to staging": a noun, a verb's -s form and a noun
 *  between commas, where the parts before and after hold verbs too, is a clause of a sentence of clauses. */
function clauseBetweenClauses(out: Token[], i: number, j: number): boolean {
  const item = out.slice(i + 1, j);
  const v = item.findIndex((t) => t.tag === 'VERB');
  if (!(v >= 1 && v + 1 < item.length && /^[a-z]{3,}[^s]s$/.test(item[v].lower) && NOUN_RUN.has(item[v - 1].tag) && isNoun(item[v + 1]))) return false;
  const segment = (from: number, step: 1 | -1) => {
    const part: Token[] = [];
    for (let k = from; k >= 0 && k < out.length && out[k].word !== ',' && !WORD_BOUNDARY.has(out[k].word); k += step) part.push(out[k]);
    return part;
  };
  const hasVerb = (part: Token[]) => part.some((t) => t.tag === 'VERB');
  const after = j < out.length && !WORD_BOUNDARY.has(out[j].word) && hasVerb(segment(j + 1, 1));
  // (Opening the text, a clause before one with a named subject: "github triggers jenkins, jenkins builds a docker
  // image ..."; before "we send ..." the clauses may be steps of their own.)
  if (i < 0) return after && isNoun(out[j + 1]);
  return hasVerb(segment(i - 1, -1)) && (j >= out.length || WORD_BOUNDARY.has(out[j].word) || after);
}

/** "Volunteers collect donations, drivers take them to ...": a plural, its bare verb and an object, opening a text of
 *  clauses (a verb before an article, a pronoun or a preposition elsewhere), is a clause, not a list item. */
function pluralClause(item: Token[], out: Token[]): boolean {
  const v = item.findIndex((t) => t.tag === 'VERB');
  const shape = v >= 1 && v + 1 < item.length && /s$/.test(item[v - 1].lower) && !/s$/.test(item[v].lower) && isNoun(item[v + 1]);
  return shape && out.some((t, k) => t.tag === 'VERB' && !item.includes(t) && opensObject(out[k + 1]));
}

/** A verb right after an object's noun, opening nothing, is the name's last word. */
function objectNameEnds(out: Token[]): void {
  // "connects to production deploy.", "connects to souwais source stelelgyt": a verb right after an object's noun,
  // opening nothing, is the name's last word.
  for (let i = 1; i < out.length; i++) {
    if (out[i].tag === 'VERB' && isNoun(out[i - 1]) && !opensObject(out[i + 1]) && !startsClause(out, i - 1)) out[i].tag = 'NOUN';
  }
}

/** A verb between a subject's bare nouns is a word of the subject. */
function subjectWords(out: Token[]): void {
  // "cesterhou chats jondpit connects to ...": a verb before bare nouns and another verb is a word of the subject.
  for (let i = 0; i < out.length; i++) {
    if (out[i].tag !== 'VERB') continue;
    let k = i + 1;
    while (k < out.length && (isNoun(out[k]) || out[k].tag === 'NUM')) k++;
    if (k > i + 1 && (out[k]?.tag === 'VERB' || out[k]?.tag === 'AUX') && !RELATIVE.has(out[i - 1]?.lower ?? '')) out[i].tag = 'NOUN';
  }
}

/** Of two verbs in a row, the first is part of the subject; a verb after a verb's bare nouns is the last of them. */
function verbPairs(out: Token[]): void {
  for (let i = 1; i + 1 < out.length; i++) {
    if (out[i + 1].tag !== 'VERB' || !/^[a-z]+s$/.test(out[i + 1].lower)) continue;
    // "git push triggers ci", "passing tests trigger deploy": of two verbs in a row the first is part of the subject.
    if (out[i].tag === 'VERB' && isNoun(out[i - 1])) out[i].tag = 'NOUN';
    // "proxies api calls to the server": a verb right after a verb's bare nouns is the last of those nouns.
    let k = i;
    while (k > 0 && isNoun(out[k])) k--;
    if (k < i && out[k].tag === 'VERB' && out[i + 2]?.tag === 'ADP') out[i + 1].tag = 'NOUN';
  }
}

/** Verb forms that are no noun: "green/ADJ goes/NOUN to yellow". */
const ONLY_VERBS = new Set(['goes', 'comes', 'becomes', 'gets']);

function onlyVerbs(out: Token[]): void {
  out.forEach((t, i) => {
    if (!ONLY_VERBS.has(t.lower) || t.word !== t.lower) return;
    // ("staging gets promoted to production": "gets" before a participle is the passive's auxiliary.)
    if (t.lower === 'gets' && /ed$/.test(out[i + 1]?.lower ?? '')) t.tag = 'AUX';
    else if (t.tag !== 'VERB' && t.tag !== 'AUX') t.tag = 'VERB';
  });
}

/** The tagger's mistakes this extraction meets, repaired in this order (each pass reads the ones before). */
const REPAIRS = [requestVerb, acronyms, nameRuns, onlyVerbs, verbsAfterNouns, passiveParticiples, articledNouns, terseVerbs, lastWordAfterTo, swappedVerbObject, listItemNames, objectNameEnds, subjectWords, verbPairs];

/** wink-nlp's tags, repaired: the verbs it takes for nouns after a noun phrase put back as verbs, names kept whole. */
export function tokens(text: string): Token[] {
  const out = tagged(text);
  for (const repair of REPAIRS) repair(out);
  return out;
}

/** Whether the noun run ending at token `end` starts a clause: no verb or preposition governs it ("from the field
 *  devices into ..." is an object, "after that the api emails ..." is a new clause). */
export function startsClause(toks: Token[], end: number, drawn = false): boolean {
  let k = end;
  while (k >= 0 && NOUN_RUN.has(toks[k].tag)) k--;
  // "In this system the scheduler assigns ...": an article after another phrase's noun starts a phrase of its own.
  if (k > 0 && toks[k].tag === 'DET' && isNoun(toks[k - 1])) return true;
  while (k >= 0 && (NOUN_RUN.has(toks[k].tag) || toks[k].tag === 'DET')) k--;
  if (k < 0) return true;
  const before = toks[k];
  // ("sketch the cpu reading from the cache": what a request to draw names may act, in a participle of its own.)
  if (drawn && before.tag === 'VERB' && DRAW_VERBS.has(before.lower)) return true;
  if (before.tag === 'VERB' || before.tag === 'AUX') return false;
  // ("each of the 3 night nurses gives ...": the things picked are a subject.)
  if (before.lower === 'of' && /^(?:each|one|all|both|none)$/.test(toks[k - 1]?.lower ?? '')) return true;
  if (before.tag === 'ADP') return before.lower === 'after' && /^(?:that|this)$/.test(toks[k + 1]?.lower ?? '');
  return true;
}

