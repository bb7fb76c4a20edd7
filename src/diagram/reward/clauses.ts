// Sentences read by their grammar, for prompt-to-spec extraction where a request is written as prose ("the crawler
// sends pages to the parsers and the parsers store links in the index"): who does what to whom, read off the repaired
// part-of-speech tags of tags.ts (wink-nlp's model has no dependency parse to read subjects and objects from).
import { removeChatter } from './chatter.ts';
import { DRAW_VERBS, isNoun, isParticiple, NOUN_RUN, opensObject, PARTICLES, RELATIVE, startsClause, tokens, WORD_BOUNDARY, type Token } from './tags.ts';

/** Words a command may hold and still be a step's name as written. */
const MAX_STEP_WORDS = 6;

/** The subject (or, after a pronoun, the last object) of a clause of three or more words; null when the tags show no
 *  noun phrase before a verb followed by a function word, and the phrase is kept as written. */
export function clauseSubject(phrase: string): string | null {
  const toks = tokens(phrase);
  const verb = toks.findIndex((t, i) => i > 0 && t.tag === 'VERB');
  // A clause goes on with a function word ("uploads a file", "checks it", "lands in storage"); a name whose word the
  // tagger takes for a verb ("Delsand Semzairk Get", "Foutbre Vex 1") does not.
  // (A preposition that ends the phrase opens nothing, "vyndgais teswyr under", unless it is a verb's particle:
  // "the ticket comes in".)
  const after = toks.slice(verb + 1);
  const opens = (t: Token, k: number) => t.tag === 'PRON' || ((t.tag === 'DET' || t.tag === 'ADP') && (k + 1 < after.length || PARTICLES.has(t.lower)));
  if (verb < 0 || !after.some(opens)) return null;
  const before = toks.slice(0, verb).filter((t) => t.tag !== 'DET');
  if (before.length > 0 && before.every((t) => NOUN_RUN.has(t.tag)) && before.some(isNoun)) return before.map((t) => t.word).join(' ');
  if (before.length === 1 && before[0].tag === 'PRON') {
    let end = toks.length;
    while (end > verb && !isNoun(toks[end - 1])) end--;
    let start = end;
    while (start > verb + 1 && NOUN_RUN.has(toks[start - 1].tag)) start--;
    if (end > start) return toks.slice(start, end).map((t) => t.word).join(' ');
  }
  return null;
}

/**
 * A condition written without a comma before its outcome ("the payment succeeds send a receipt", "it is right go to
 * the dashboard", "over 21 let them in"): the condition's subject, and the outcome, which starts after the condition's
 * verb and what completes it (an adjective, a participle, a particle), or at the first verb where the condition has no
 * subject. Null without a verb, or without words after the condition.
 */
export function splitCondition(text: string): { subject: string | null; outcome: string } | null {
  const toks = tokens(text);
  const v = toks.findIndex((t) => t.tag === 'VERB' || t.tag === 'AUX');
  if (v < 0) return null;
  const before = toks.slice(0, v);
  const hasSubject = before.some((t) => isNoun(t) || t.tag === 'PRON');
  let end = v;
  if (hasSubject) {
    end = v + 1;
    if (toks[v].tag === 'AUX') {
      while (end < toks.length && (toks[end].tag === 'PART' || toks[end].tag === 'ADV')) end++;
      if (end < toks.length && /^(?:ADJ|VERB|NUM)$/.test(toks[end].tag)) end++;
    }
    while (end < toks.length && toks[end].tag === 'ADP' && PARTICLES.has(toks[end].lower)) end++;
    // ("it's under $50 it goes to auto-approve": the outcome is the clause its own subject opens.)
    const own = toks.findIndex((t, k) => k > end && t.tag === 'PRON' && /^(?:it|they|we|you|he|she)$/.test(t.lower) && toks[k + 1]?.tag === 'VERB');
    if (own !== -1) end = own;
  }
  if (end >= toks.length) return null;
  const subject = hasSubject ? before.filter((t) => t.tag !== 'DET').map((t) => t.word).join(' ') : null;
  return { subject, outcome: toks.slice(end).map((t) => t.word).join(' ') };
}

/**
 * A sentence that is a command ("Preheat the oven", "Water them every day", "send it to legal"), as the step it names:
 * the command as written, or, where its object is a pronoun and a preposition names a place, that place ("send it to
 * legal": legal). Null for a sentence with a subject, or none of the tagger's verbs at its start.
 */
export function commandStep(text: string): string | null {
  const toks = imperativeTokens(text);
  const first = toks[0];
  if (!first || (first.tag !== 'VERB' && !(/^(?:NOUN|ADJ|PROPN)$/.test(first.tag) && opensObject(toks[1])))) return null;
  if (toks[1] && toks[1].tag === 'VERB') return null;
  const pronoun = toks[1]?.tag === 'PRON' && /^(?:it|them)$/.test(toks[1].lower);
  const prep = toks.findIndex((t, i) => i > 1 && t.tag === 'ADP' && TOWARD.has(t.lower));
  // (A command too long to be a box's name is named by its place too: "store the parsed events in the index".)
  if ((pronoun || toks.length > MAX_STEP_WORDS) && prep !== -1) {
    const place = nounPhrase(toks, prep + 1);
    if (place && !place.pronoun) return place.text;
  }
  return toks.filter((t) => t.tag !== 'PUNCT').map((t) => t.word).join(' ');
}

/**
 * A command's tokens. The tagger, trained on statements, reads a command's first word as an adjective or a noun
 * ("open/ADJ localhost in a browser", "warm/ADJ up"); after the subject a command leaves out ("you open localhost
 * ...") it reads it as the verb it is, and then that reading counts.
 */
function imperativeTokens(text: string): Token[] {
  const plain = tokens(text);
  if (plain[0]?.tag === 'VERB' || plain.length === 0) return plain;
  const withSubject = tokens(`you ${text}`).slice(1);
  if (withSubject.length !== plain.length) return plain;
  // ("do sprints": "do" is the verb of a command, not an auxiliary.)
  if (withSubject[0].tag === 'AUX' && withSubject[0].lower === 'do' && withSubject.length > 1) withSubject[0] = { ...withSubject[0], tag: 'VERB' };
  return withSubject[0].tag === 'VERB' ? withSubject : plain;
}

/** The things a text names: its noun phrases (no pronouns, nothing about the drawing itself), each once, in order. */
export function nounPhrases(text: string): string[] {
  const toks = tokens(removeChatter(text));
  const out: string[] = [];
  for (let i = 0; i < toks.length; ) {
    const p = nounPhrase(toks, i);
    if (!p) {
      i++;
      continue;
    }
    const quantified = toks.slice(p.start, p.end).some((t) => /^(?:each|every|any)$/.test(t.lower));
    if (!p.pronoun && !quantified && !DRAWING.test(p.text) && !out.some((o) => o.toLowerCase() === p.text.toLowerCase())) out.push(p.text);
    i = p.end;
  }
  return out;
}

/** Whether a phrase holds a verb: "we send verification email", "account activated", not "verification email". */
export const isClause = (phrase: string) => tokens(phrase).some((t) => t.tag === 'VERB');

const CONDITION_OPENERS = new Set(['when', 'whenever', 'if', 'once', 'after', 'before', 'until', 'unless']);

/** Whether token `v` lies in a condition that opens the sentence and a comma closes: "when X happens, Y does Z". */
function inCondition(toks: Token[], v: number): boolean {
  let k = v;
  while (k > 0 && toks[k - 1].word !== ',') k--;
  const opener = toks[k];
  if (!opener || !CONDITION_OPENERS.has(opener.lower) || (opener.tag !== 'SCONJ' && opener.tag !== 'ADV' && opener.tag !== 'ADP')) return false;
  // ("after that it goes through the ironer": "after that" says what comes next; "after that finishes, ..." waits.)
  if (opener.lower === 'after' && /^(?:that|this)$/.test(toks[k + 1]?.lower ?? '') && !/^(?:VERB|AUX)$/.test(toks[k + 2]?.tag ?? '')) return false;
  return toks.slice(v).some((t) => t.word === ',');
}

/** Who a condition of time names as setting the main clause going, or undefined: "When Stripe sends a webhook, ..."
 *  (Stripe), "When the login form is submitted, ..." (the form), "When a package arrives at the sorting hub, ..." (where
 *  it arrives). A subject that does nothing to anything ("when a user searches", "when the database fails") or stands
 *  for anyone ("when someone pushes") sets nothing going. */
function trigger(toks: Token[]): string | undefined {
  if (!/^(?:when|whenever|once)$/.test(toks[0]?.lower ?? '')) return undefined;
  const comma = toks.findIndex((t) => t.word === ',');
  if (comma < 0) return undefined;
  const subject = nounPhrase(toks, 1);
  if (!subject || subject.pronoun || subject.end >= comma || /^(?:someone|somebody|anyone|anybody|everyone|nobody)$/.test(subject.text.toLowerCase())) return undefined;
  const [a, b, c] = [toks[subject.end], toks[subject.end + 1], toks[subject.end + 2]];
  if (a.tag === 'AUX' && /^(?:is|are|gets?)$/.test(a.lower) && b && PAST_PARTICIPLE.test(b.lower) && subject.end + 2 === comma) return subject.text;
  if (a.tag !== 'VERB') return undefined;
  if (MOVES.has(a.lemma) && b?.tag === 'ADP' && TOWARD.has(b.lower)) {
    const place = nounPhrase(toks, subject.end + 2);
    return place && !place.pronoun && place.end === comma ? place.text : undefined;
  }
  return !MOVES.has(a.lemma) && b && (b.tag === 'DET' || isNoun(b)) && c !== undefined ? subject.text : undefined;
}

/**
 * The tokens without relative clauses that only describe the subject between commas before its verb: "Each application
 * server, which runs a small agent, pushes metrics to Prometheus" (what the agent runs on is no box, and the server
 * is the verb's subject). One that names who acts ("..., which are uploaded by the labeling vendor, ...") stays.
 */
function withoutAsides(toks: Token[]): Token[] {
  const out = [...toks];
  for (let a = 1; a + 1 < out.length; a++) {
    if (out[a].word !== ',' || !/^(?:which|who)$/.test(out[a + 1].lower)) continue;
    let b = a + 2;
    while (b < out.length && out[b].word !== ',' && !WORD_BOUNDARY.has(out[b].word)) b++;
    if (out[b]?.word !== ',' || out[b + 1]?.tag !== 'VERB' || out.slice(a, b).some((t) => t.lower === 'by')) continue;
    out.splice(a, b + 1 - a);
  }
  return out;
}

export interface ClauseRelations {
  entities: string[];
  edges: [string, string][];
  /** The verbs the edges were read from, as written ("sends", "queries"). */
  verbs: string[];
  /** Whether an object was a pronoun read as the thing named before ("... read from it"). */
  resolved: boolean;
  /** The first verb's subject. */
  subject: string[];
  /** What prepositions named ("at reception", "from the server", "behind one load balancer"): places, not payloads. */
  places: string[];
  /** Direct objects, each with the verb that takes it ("calls the auth service", "makes a thumbnail"). */
  objects: { name: string; verb: string }[];
  /** Whether a thing was followed on its way from place to place ("is mined at the pit, then trucked to ..."). */
  travelled: boolean;
  /** Whether a clause left out its verb ("... and large files to the batch queue"). */
  gapped: boolean;
}

/** Prepositions before the thing a relation goes to ("sends pages to the parsers", "stores links in the index"). */
const TOWARD = new Set(['to', 'into', 'onto', 'on', 'toward', 'towards', 'through', 'via', 'in', 'with', 'at', 'across']);
/** Prepositions before the thing a relation comes from, with the verbs that read that way ("pulls jobs from"). */
const FROM = new Set(['from']);
/** Prepositions of the way a thing moves along ("comes down the chute"): toward, after a verb of moving. */
const ALONG = new Set(['down', 'up', 'along', 'over', 'past']);
const FROM_VERBS = new Set(['receive', 'measure', 'sense', 'detect', 'monitor', 'watch', 'observe', 'get', 'pull', 'read', 'fetch', 'ingest', 'load', 'consume', 'accept', 'draw', 'take', 'collect', 'download', 'arrive', 'come', 'subscribe', 'pick', 'grab']);
/** A past participle: a regular ending ("is served", "is written", "is shown") or an irregular form ("is set", "is
 *  sent", "are split"). */
export const isPastParticiple = (word: string) => PAST_PARTICIPLE.test(word.toLowerCase());
const PAST_PARTICIPLE = /(?:ed|en|wn)$|^(?:set|put|cut|sent|built|held|kept|made|paid|run|read|split|shut|spread|led|left|lost|sold|told|brought|bought|caught|taught|found|hit|laid|met|shot|struck|won|spun|dealt|meant|sought|thought|swept|bound|wound|hung|stuck|spent|lent|dug)$/;
/** Verbs whose passive says what a thing is like: "is based in", "is staffed from 8 to 5", "is maintained by". */
const STATES = new Set(['base', 'locate', 'situate', 'staff', 'set', 'schedule', 'maintain', 'own', 'found', 'name', 'call', 'host', 'house', 'configure', 'license', 'price', 'rate', 'size', 'budget']);
/** Verbs of handing something on, whose passive's subject is what travels: "is sent to", "are emailed to". */
const PASSED_ON = new Set(['send', 'split', 'distribute', 'divide', 'pass', 'forward', 'move', 'deliver', 'ship', 'email', 'route', 'feed', 'push', 'upload', 'transfer', 'hand', 'take', 'carry', 'bring', 'return', 'mail', 'post', 'submit', 'load', 'copy', 'write', 'store', 'save', 'sync', 'export', 'publish', 'stream', 'pipe', 'relay', 'dispatch', 'courier', 'transport', 'redirect', 'escalate', 'refer', 'receive', 'collect', 'pick', 'generate', 'process', 'review', 'fill', 'scan', 'check', 'sort', 'pack', 'print', 'sign', 'approve']);
/** Verbs of something moving from place to place: "it starts in the House, moves to the Senate". */
const MOVES = new Set(['start', 'move', 'go', 'end', 'arrive', 'travel', 'pass', 'come', 'land', 'flow', 'head', 'enter', 'reach', 'continue', 'proceed', 'finish']);
/** Verbs whose direct object is a thing made, which travels on rather than being a box: "builds an image". */
const MAKES = new Set(['build', 'make', 'cook', 'create', 'produce', 'generate', 'bake', 'brew', 'prepare', 'print', 'draft', 'compile', 'render', 'assemble', 'write']);

/** Whether a phrase named `name` is a verb's subject after token `v`: "... an image and then the image goes to ...". */
function actsLater(toks: Token[], v: number, name: string): boolean {
  const head = name.toLowerCase().split(' ').pop();
  return toks.some((t, k) => k > v && t.lower === head && (toks[k + 1]?.tag === 'VERB' || toks[k + 1]?.tag === 'AUX'));
}

/** Verbs whose passive's agent takes the subject in: "is eaten by", "is broken down by", "is read by". */
const CONSUMED = new Set(['eat', 'hunt', 'consume', 'digest', 'absorb', 'catch', 'devour', 'swallow', 'break', 'take', 'read', 'fetch', 'pull', 'kill']);
/** "web servers sit behind a load balancer", "the frontend is served by nginx": the object comes first. */
const BEHIND = new Set(['behind']);
/** What travels along an arrow rather than being a box: "data arrives from the devices into a broker". */
const PAYLOAD = new Set(['data', 'traffic', 'information', 'info', 'messages', 'events', 'requests', 'packets', 'logs', 'metrics']);
/** Words before a noun that count or pick it, not part of its name ("a single database", "one load balancer"). */
const PICKERS = new Set(['single', 'one', 'each', 'every', 'all', 'both', 'some', 'several', 'another', 'other', 'same', 'right', 'correct', 'appropriate', 'relevant', 'proper', 'whole', 'entire']);
/** Determiners and possessives a noun phrase starts with. */
const OPENERS = new Set(['DET', 'PRON']);
/** Phrases about the drawing, not things in it: "a diagram showing ...", "with these connections". */
// (A generic word of the drawing is one only alone: "edge nodes" and "worker nodes" are names.)
const DRAWING = /\b(?:diagrams?|charts?|flowcharts?|graphs?|pictures?|drawings?|figures?|sketch|canvas|root)$|^(?:(?:the|these|those|all|its)\s+)?(?:box(?:es)?|nodes?|edges?|shapes?|connections?|arrows?)$/i;
/** A drawing named in the sentence ("Create the whole thing as a dataset splits tree"): it is a request to draw. */
const DRAWING_NOUN = /\b(?:diagrams?|charts?|flowcharts?|graphs?|pictures?|drawings?|figures?|state machine|map|tree|hierarchy|sequence)\b|\b(?:an?|the|my)\s+(?:quick\s+)?sketch\b/i;
/** A drawing noun and the chatter after it, before the contents: "diagram rn", "diagram pls,", "chart -". */
const AFTER_DRAWING = /\b(?:diagram|chart|flowchart|graph|picture|drawing|sketch)\s*(?:\b(?:rn|pls|plz|please|asap|quick)\b\s*)*[,:-]?\s+(?!(?:of|for|about|on|with|that|which|to|in)\b)(?=[a-z])/i;
/** What introduces the contents of a drawing: "a diagram where ...", "a picture showing ...". */
const SHOWS = /\b(?:where|in which|showing|that shows|shows|of how|how)\s+/gi;

interface Phrase {
  /** Index of its first and one past its last token. */
  start: number;
  end: number;
  text: string;
  pronoun: boolean;
}

/** The noun phrase that starts at token `i` (after articles and possessives), or null. */
function nounPhrase(toks: Token[], i: number): Phrase | null {
  let j = i;
  if (toks[j] && toks[j].tag === 'PRON' && !/^(?:its|our|their|my|your|his|her)$/.test(toks[j].lower)) {
    return { start: i, end: j + 1, text: toks[j].lower, pronoun: true };
  }
  // ("..., and those are taken by hawks": those, alone, are them.)
  if (toks[i] && /^(?:those|these)$/.test(toks[i].lower) && !NOUN_RUN.has(toks[i + 1]?.tag ?? '')) return { start: i, end: i + 1, text: 'them', pronoun: true };
  // ("both of those write to postgres": those are them.)
  if (/^(?:all|both|each)$/.test(toks[i]?.lower ?? '') && toks[i + 1]?.lower === 'of' && /^(?:those|these)$/.test(toks[i + 2]?.lower ?? '')) {
    return { start: i, end: i + 3, text: 'them', pronoun: true };
  }
  while (toks[j] && OPENERS.has(toks[j].tag)) j++;
  // "one of the ECS tasks", "all of them": the things picked from; "a pair of load balancers": two of them.
  if (toks[j] && (PICKERS.has(toks[j].lower) || toks[j].tag === 'NUM' || /^(?:pair|couple)$/.test(toks[j].lower)) && toks[j + 1]?.lower === 'of' && j + 2 < toks.length) {
    const picked = nounPhrase(toks, j + 2);
    const two = /^(?:pair|couple)$/.test(toks[j].lower);
    return picked && { ...picked, start: i, ...(two && !picked.pronoun ? { text: `two ${picked.text}` } : {}) };
  }
  while (toks[j] && PICKERS.has(toks[j].lower) && toks[j + 1] && NOUN_RUN.has(toks[j + 1].tag) && !(toks[j].lower === 'one' && toks[j + 1].tag === 'ADJ' && !isNoun(toks[j + 2]))) j++;
  const from = j;
  // ("the President's desk": a possessive inside the name.)
  while (toks[j] && (NOUN_RUN.has(toks[j].tag) || ((toks[j].word === '-' || toks[j].lower === "'s") && j > from && isNoun(toks[j + 1])))) j++;
  let end = j;
  while (end > from && !isNoun(toks[end - 1]) && toks[end - 1].tag !== 'NUM') end--;
  if (end === from) return null;
  return { start: i, end, text: toks.slice(from, end).map((t) => t.word).join(' ').replace(/ - /g, '-').replace(/ 's\b/g, "'s"), pronoun: false };
}

/** Noun phrases joined by "and", "or" and commas from token `i`: "the parsers and the index". */
function phraseList(toks: Token[], i: number, verbAt = -1): { phrases: Phrase[]; end: number } {
  const phrases: Phrase[] = [];
  let at = i;
  for (;;) {
    const p = nounPhrase(toks, at);
    if (!p) break;
    phrases.push(p);
    at = p.end;
    const joiner = toks[at];
    if (!joiner || !(joiner.tag === 'CCONJ' || joiner.word === ',')) break;
    // "A sends to B, and C reads from D": a joiner before a new subject's verb ends the list, unless two phrases joined
    // by "and" are that verb's subject (`verbAt`: "the user service and the order service publish ..."; a longer list
    // is more often names with a word the tagger took for a verb).
    const next = nounPhrase(toks, at + 1 + (toks[at + 1]?.tag === 'CCONJ' ? 1 : 0));
    const pair = phrases.length === 1 && joiner.tag === 'CCONJ' && next?.end === verbAt;
    // (Nor does a phrase that goes somewhere itself after a list toward something: "to the fast queue and large files
    // to the batch queue" leaves out the verb of a clause of its own; "from A and B to C" is one list.)
    // (One bare word there is more often a verb the tagger missed: "work nights and report/NOUN to the supervisor".)
    const goes = joiner.tag === 'CCONJ' && /^(?:to|into|onto)$/.test(toks[i - 1]?.lower ?? '') && next !== null && next.end - next.start >= 2 && gappedClause(toks, next.start)?.placed === true;
    if (!next || next.pronoun || goes || (!pair && (toks[next.end]?.tag === 'VERB' || toks[next.end]?.tag === 'AUX'))) break;
    at = at + 1 + (toks[at + 1]?.tag === 'CCONJ' ? 1 : 0);
  }
  return { phrases, end: phrases.length ? phrases[phrases.length - 1].end : i };
}

/** A clause without its verb from token `start`: a phrase, "to" and where it goes ("large files to the batch queue",
 *  "the defender to midfield"); `placed` where that has an article or more than one word ("... and oven two to bake"
 *  is more likely an infinitive). */
function gappedClause(toks: Token[], start: number): { first: Phrase; second: Phrase; placed: boolean } | null {
  const first = nounPhrase(toks, start);
  const prep = first && toks[first.end];
  if (!first || first.pronoun || !prep || prep.tag !== 'ADP' || !/^(?:to|into|onto)$/.test(prep.lower)) return null;
  const second = nounPhrase(toks, first.end + 1);
  const after = second && toks[second.end];
  if (!second || second.pronoun || (after && !WORD_BOUNDARY.has(after.word) && after.word !== ',' && after.tag !== 'CCONJ')) return null;
  return { first, second, placed: second.end - second.start >= 2 || toks[second.start].tag === 'DET' };
}

/** Clauses that leave out the verb of the one before, from token `at`: "sends small files to the fast queue and large
 *  files to the batch queue" (what else the subject sends where), "passes to the defender, the defender to midfield"
 *  (who passes on where). `withObject`: the verb before took a direct object, so a gapped clause's first phrase may be
 *  another one. */
function gapped(toks: Token[], at: number, withObject: boolean, subject: string[], last: string, add: (a: string, b: string) => void): boolean {
  let read = false;
  let from = subject;
  for (let i = at; i < toks.length && (toks[i].word === ',' || toks[i].tag === 'CCONJ'); ) {
    const clause = gappedClause(toks, i + 1 + (toks[i].word === ',' && toks[i + 1]?.tag === 'CCONJ' ? 1 : 0));
    if (!clause) return read;
    const { first, second, placed } = clause;
    // (Who passes on is the one just passed to; else, after a direct object, a short phrase is another, going where
    // an article or more than one word says: "professors post final marks to the registrar" is a clause whose verb the
    // tagger missed, "oven two to bake" an infinitive.)
    if (first.text === last) from = [first.text];
    else if (!withObject || first.text.split(' ').length > 2 || !placed) return read;
    for (const a of from) add(a, second.text);
    last = second.text;
    read = true;
    i = second.end;
  }
  return read;
}

/** The noun phrase that ends right before token `end`, starting at most four words back. */
function phraseEndingAt(toks: Token[], end: number): Phrase | undefined {
  for (let start = Math.max(0, end - 4); start < end; start++) {
    const p = nounPhrase(toks, start);
    if (p && p.end === end && !p.pronoun) return p;
  }
  return undefined;
}

/**
 * Who sends, calls or feeds whom in a sentence written as prose, read off its tags: each verb's subject (the noun
 * phrase before it, the antecedent of "which", or the subject of the verb it is joined to by "and"), and its object (a
 * phrase after a preposition toward something, else its direct object). Null when the sentence holds no such verb, or
 * holds a quoted name (a token the tagger cannot read).
 */
export function clauseRelations(sentence: string): ClauseRelations | null {
  if (/[\uE000\uE001]/.test(sentence)) return null;
  // "Think of a library: members borrow books ...": what a colon introduces is the sentence; "a diagram where A calls
  // B": what the drawing is to show.
  let text = removeChatter(sentence.slice(sentence.lastIndexOf(':') + 1));
  if (DRAWING_NOUN.test(text)) {
    const shows = [...text.matchAll(SHOWS)].pop();
    // ("need a quick diagram rn frontend talks to api gateway": what follows the drawing, where it is no topic.)
    const after = shows ? null : AFTER_DRAWING.exec(text);
    if (!shows && !after) return null;
    text = shows ? text.slice((shows.index ?? 0) + shows[0].length) : text.slice((after!.index ?? 0) + after![0].length);
  }
  const toks = withoutAsides(tokens(text));
  const entities: string[] = [];
  const edges: [string, string][] = [];
  const verbs: string[] = [];
  let verbWord = '';
  const add = (a: string, b: string) => {
    if (a.toLowerCase() === b.toLowerCase() || edges.some(([x, y]) => x === a && y === b)) return;
    if (!verbs.includes(verbWord)) verbs.push(verbWord);
    edges.push([a, b]);
    if (!entities.includes(a)) entities.push(a);
    if (!entities.includes(b)) entities.push(b);
  };
  let lastSubject: Phrase[] = [];
  let lastPhrase: Phrase | undefined;
  let lastObject: Phrase | undefined;
  let objects: Phrase | undefined;
  let resolved = false;
  // ("From the slitting line, strips are fed into the stamping press": where what the sentence moves starts.)
  const startPlace = toks[0]?.lower === 'from' ? nounPhrase(toks, 1) : null;
  let lastPlace: string | undefined = startPlace && !startPlace.pronoun ? startPlace.text : undefined;
  // What the last clause with objects named, all of them ("hits orders svc and inventory svc").
  let objectList: Phrase[] = [];
  let lastObjects: Phrase[] = [];
  let lastPassive = false;
  let firstSubject: string[] = [];
  const places: string[] = lastPlace ? [lastPlace] : [];
  const directObjects: { name: string; verb: string }[] = [];
  // Prose has function words; a row of bare words with a verb-like one among them is a name ("plondux listen poxnul").
  const prose = toks.some((t) => t.tag === 'DET' || t.tag === 'ADP');
  let startedBy = trigger(toks);
  let madeSomething = false;
  let wayfarer: { name: string; stops: string[] } | undefined;
  let travelled = false;
  let gaps = false;
  for (let v = 1; v < toks.length; v++) {
    if (toks[v].tag !== 'VERB') continue;
    const verb = toks[v];
    verbWord = verb.word;
    if (objects) {
      lastObject = objects;
      lastObjects = objectList;
    }
    objects = undefined;
    const next = toks[v + 1];
    // A verb right after a preposition is a name's word or an infinitive ("to pat limits", "to Launch").
    // (A gerund after "before", "after" or "by" is the last subject's next act: "..., which filters it before passing it
    // on to the edge router".)
    const gerund = isParticiple(verb) && /^(?:before|after|by|while|without)$/.test(toks[v - 1].lower) && lastSubject.length > 0;
    if ((toks[v - 1].tag === 'ADP' || toks[v - 1].tag === 'PART') && !gerund) continue;
    // A participle before a bare noun is part of a name ("lerkbrertum boosting dendzes"), and so is a bare word in a
    // text without function words.
    // ("the browser hitting nginx": after a phrase with an article, a participle is a verb.)
    const articled = toks.slice(Math.max(0, v - 4), v).some((t) => t.tag === 'DET');
    // (Unless its object goes on to a preposition's place: "3 workers pulling jobs from one Redis queue".)
    const placed = toks[v + 2]?.tag === 'ADP' && toks[v + 2].lower !== 'of' && toks[v - 1].tag === 'NOUN';
    if (isNoun(next) && ((isParticiple(verb) && !articled && !placed) || (!prose && !/s$/.test(verb.lower)))) continue;
    // "when someone pushes to main, github actions deploys ...": a condition before the main clause relates nothing.
    if (inCondition(toks, v)) continue;
    // The subject: the phrase that ends right before the verb (an adverb such as "also" between), or for "which" the
    // phrase before it, or for "and <verb>" the last verb's subject.
    let s = v - 1;
    let passive = false;
    while (s > 0 && (toks[s].tag === 'ADV' || toks[s].tag === 'AUX' || toks[s].tag === 'PART' || (s === v - 1 && /^(?:both|all|each)$/.test(toks[s].lower)))) {
      if (toks[s].tag === 'AUX' && /^(?:is|are|was|were|be|been|being|gets?|['’](?:s|re))$/.test(toks[s].lower)) passive = PAST_PARTICIPLE.test(verb.lower);
      s--;
    }
    // ("... are generated by the billing service and emailed to customers": a participle joined to a passive.)
    if ((toks[s].tag === 'CCONJ' || toks[s].word === ',') && lastPassive && PAST_PARTICIPLE.test(verb.lower)) passive = true;
    let subject: Phrase[] = [];
    // (With no phrase read yet, the antecedent is the phrase right before it: "There is a web frontend that is
    // connected to an API server".)
    // ("..., all of which talk to one Redis": all of what was named before.)
    const allOf = RELATIVE.has(toks[s].lower) && toks[s - 1]?.lower === 'of' && /^(?:all|both|each)$/.test(toks[s - 2]?.lower ?? '');
    const before = allOf ? (toks[s - 3]?.word === ',' ? s - 3 : s - 2) : s;
    const antecedent = RELATIVE.has(toks[s].lower) ? (allOf ? phraseEndingAt(toks, before) : (lastPhrase ?? phraseEndingAt(toks, s))) : undefined;
    if (antecedent) subject = [antecedent];
    else if (toks[s].tag === 'CCONJ' || toks[s].word === ',' || gerund) subject = lastSubject;
    else {
      // Back over the noun run and its determiners to where the phrase (or a list of phrases) starts.
      // The earliest start, at most a dozen words back, of a list of phrases that ends at the verb ("In this system
      // the scheduler assigns ...": the scheduler; "web, mobile and desktop clients call ...": all three).
      for (let back = s; back >= 0 && back >= s - 12; back--) {
        // (A phrase a preposition governs is no subject: "wood is sawn into planks and ore is smelted ...".)
        if (back > 0 && toks[back - 1].tag === 'ADP' && toks[back - 1].lower !== 'of' && back < s) continue;
        const list = phraseList(toks, back, s + 1);
        if (list.end === s + 1 && list.phrases.length) subject = list.phrases;
      }
    }
    // ("... feeds 3 packing stations, and all of them drop boxes onto ...": them, as a subject, is all the last clause's
    // objects.)
    subject = subject.flatMap((p) => (p.pronoun && p.text === 'them' && lastObjects.length ? lastObjects : [p]));
    // "It starts in the House, moves to the Senate, and ends at the President's desk": what "it" moves through are the
    // boxes, one after another.
    // (So is what "it" or "they" is sent on to, from a place: "From there they are split across the retail stores".)
    const pronounSubject = subject.length > 0 && subject.every((p) => p.pronoun && /^(?:it|they)$/.test(p.text));
    // "The ore is mined at the pit, then trucked to the crusher", "dirty linen comes down the chute ..., then it's washed
    // in the tunnel washer": a thing seen at a place that goes on, itself or as "it", was on its way there; the places
    // are the boxes, in order, and the thing none.
    const onward = wayfarer !== undefined && (pronounSubject || (subject.length === 1 && subject[0].text === wayfarer.name)) && (passive || (MOVES.has(verb.lemma) && /^(?:ADP|ADV)$/.test(next?.tag ?? '')));
    if (onward && wayfarer) {
      const { name, stops } = wayfarer;
      for (const stop of stops) {
        const k = edges.findIndex(([a, b]) => (a === name && b === stop) || (a === stop && b === name));
        if (k !== -1) edges.splice(k, 1);
      }
      const at = entities.indexOf(name);
      if (at !== -1 && !edges.some((e) => e.includes(name))) entities.splice(at, 1);
      for (let k = 1; k < stops.length; k++) add(stops[k - 1], stops[k]);
      lastPlace = stops[stops.length - 1];
      travelled = true;
      subject = [{ ...subject[0], pronoun: true, text: 'it' }];
    }
    wayfarer = undefined;
    const traveller = onward || (pronounSubject && (MOVES.has(verb.lemma) || (passive && lastPlace !== undefined && (travelled || startPlace !== null || PASSED_ON.has(verb.lemma)))));
    if (traveller) lastSubject = subject;
    subject = subject.filter((p) => !DRAWING.test(p.text) && (!p.pronoun || !/^(?:it|this|that|they|them|we|i|you)$/.test(p.text)));
    if (subject.length === 0 && !traveller) continue;
    if (!traveller) {
      lastSubject = subject;
      lastPhrase = subject[subject.length - 1];
    }
    lastPassive = passive;
    // "the IT team, which is based in Denver", "the desk is staffed from 8 to 5": a passive that says where or how a
    // thing is, not where anything goes.
    if (passive && STATES.has(verb.lemma)) continue;
    // The objects: from the verb to the next boundary, the first phrase after each preposition, and a direct object.
    let direct: Phrase[] = [];
    let toward: Phrase[] = [];
    let from: Phrase[] = [];
    let behind: Phrase[] = [];
    let carried = false;
    // (The lemma of a verb the tagger took for a noun is the noun's: "reading" for "the cpu reading from the cache".)
    const reads = FROM_VERBS.has(verb.lemma) || FROM_VERBS.has(verb.lower.replace(/(?:ing|es|s|ed)$/, ''));
    // A comma or "and" the phrase lists did not take ends the objects: what follows is another clause.
    let i = v + 1;
    for (; i < toks.length && !WORD_BOUNDARY.has(toks[i].word) && !/^(?:VERB|SCONJ|CCONJ)$/.test(toks[i].tag) && toks[i].word !== ','; ) {
      const t = toks[i];
      let prep = t.tag === 'ADP' ? t.lower : t.tag === 'ADV' && t.lower === 'back' ? '' : null;
      // ("... sits in front of the web servers": toward them.)
      if (prep === 'in' && toks[i + 1]?.lower === 'front' && toks[i + 2]?.lower === 'of') {
        prep = 'to';
        i += 2;
      }
      const list = phraseList(toks, prep === null ? i : i + 1);
      if (list.phrases.length === 0) {
        i++;
        continue;
      }
      // "... write into one topic and three consumers read from it": a pronoun object is the last thing named as an
      // object before this verb.
      // So is a reading verb's pronoun object, read where it was sent: "... publish events to a bus, and the email
      // service consumes them".
      let readBack = false;
      const named = list.phrases
        .map((p) => {
          // ("From the crusher, the conveyor takes it to the mill": what "it" is on its way from.)
          if (p.pronoun && prep === null && /^(?:it|them)$/.test(p.text) && !lastObject && lastPlace !== undefined && startPlace && subject.length) carried = true;
          // ("... picks it up from there": the last place named.)
          if (p.pronoun && p.text === 'there' && lastObject) return lastObject;
          if (!p.pronoun || !/^(?:it|them)$/.test(p.text) || (prep === null && !reads) || !lastObject) return p;
          resolved = true;
          readBack = prep === null;
          return lastObject;
        })
        .filter((p) => !p.pronoun && !DRAWING.test(p.text));
      if (named.length) {
        lastPhrase = named[named.length - 1];
        objects = lastPhrase;
        objectList = named;
      }
      // A direct object taken one at a time is what flows, not a box: "the nurse sees each patient".
      const stream = prep === null && /^(?:each|every)$/.test(toks[i].lower);
      if (readBack) from = from.length ? from : named;
      else if (prep === null) {
        if (direct.length === 0 && toward.length === 0 && from.length === 0 && !stream) direct = named;
      } else if ((prep === 'by' && passive) || BEHIND.has(prep)) behind = named;
      else if (FROM.has(prep) || (prep === 'off' && MOVES.has(verb.lemma))) from = from.length ? from : named;
      else if ((TOWARD.has(prep) || (ALONG.has(prep) && MOVES.has(verb.lemma))) && toward.length === 0) toward = named;
      i = list.end;
      // "... to the chat app in another language": a second phrase toward something is a circumstance, not a target.
      if (toward.length && toks[i]?.tag === 'ADP' && !FROM.has(toks[i].lower) && !(passive && toks[i].lower === 'by')) break;
    }
    // ("... written to S3, where Athena can query them", "out to the field, where a head count is taken by the assistant
    // principal": who acts where a place was just named comes after it there.)
    const where = subject.length > 0 && toks[subject[0].start - 1]?.lower === 'where' && toks[subject[0].start - 2]?.word === ',' ? phraseEndingAt(toks, subject[0].start - 2) : undefined;
    // (A place a preposition named: "Draw states 0, 1 and 2, where 0 goes to 1" names no place.)
    if (where && places.includes(where.text)) {
      const agents = passive ? behind : subject;
      for (const p of agents) add(where.text, p.text);
      if (passive) continue;
    }
    const payload = subject.every((p) => PAYLOAD.has(p.text.toLowerCase()));
    const names = (ps: Phrase[]) => ps.map((p) => p.text);
    // (What set the main clause going goes to who acts in it: "When Stripe sends a webhook, the webhook handler ...",
    // "When a resident reports a pothole, the report is received by the 311 call center".)
    if (startedBy) for (const p of passive && behind.length ? behind : subject) if (!p.pronoun) add(startedBy, p.text);
    startedBy = undefined;
    if (firstSubject.length === 0) firstSubject = names(subject);
    for (const p of [...toward, ...from, ...behind]) if (!places.includes(p.text)) places.push(p.text);
    // (So is what moves or gets from one place to another: "How does a customer complaint get from the support inbox to
    // the engineering backlog?")
    const moves = (MOVES.has(verb.lemma) || verb.lemma === 'get') && toks[v + 1]?.tag !== 'PRON' && direct.length === 0;
    if ((payload || moves) && from.length && toward.length) {
      for (const a of names(from)) for (const b of names(toward)) add(a, b);
      continue;
    }
    if (carried && lastPlace !== undefined && toward.length) {
      for (const p of subject) add(lastPlace, p.text);
      for (const p of subject) add(p.text, toward[0].text);
      lastPlace = toward[0].text;
      travelled = true;
      continue;
    }
    if (traveller) {
      // ("... and then from the silo it goes to the feed mill": where it goes on from.)
      const from = phraseEndingAt(toks, s);
      if (from && toks[from.start - 1]?.lower === 'from') lastPlace = from.text;
      // (Where a passive says who does it and where, both in turn: "... filtered by the sand filters".)
      for (const place of passive ? [...behind, ...toward] : [...toward, ...direct].slice(0, 1)) {
        if (lastPlace) add(lastPlace, place.text);
        lastPlace = place.text;
      }
      continue;
    }
    // What a passive sends on is what travels, and where it goes the boxes, in order: "Invoices are generated by the
    // billing service and emailed to customers by the notification service" (billing service -> notification service
    // -> customers), "... and are moved to the slitting line" (on from where the clause before took them).
    // (Once on its way, whatever is done to it where: "... are collected at the creek, then filtered in the field lab".)
    if (passive && (toward.length || from.length) && (PASSED_ON.has(verb.lemma) || lastPlace !== undefined)) {
      const stops = [...from, ...behind, ...toward].map((p) => p.text);
      // ("Traffic from the office LAN is sent to the firewall": where what travels comes from, named in the subject.)
      let k = subject.length === 1 ? subject[0].start - 1 : -1;
      while (k > 0 && toks[k].tag === 'DET') k--;
      const inSubject = k > 0 && toks[k].lower === 'from' ? subject[0].text : undefined;
      let at = lastPlace ?? lastObject?.text ?? inSubject;
      for (const stop of stops) {
        if (at) add(at, stop);
        at = stop;
      }
      lastPlace = at;
      continue;
    }
    // ("Invoices are generated by the billing service and emailed to ...": where it starts, where a participle joined
    // to this one sends it on.)
    const goesOn = () => {
      const w = toks.findIndex((t, k) => k > v && t.tag === 'VERB');
      return w !== -1 && (toks[w - 1].tag === 'CCONJ' || toks[w - 1].word === ',') && PAST_PARTICIPLE.test(toks[w].lower);
    };
    if (passive && behind.length && goesOn()) {
      lastPlace = behind[behind.length - 1].text;
      continue;
    }
    // ("grass is eaten by grasshoppers": what is consumed goes to what consumes it; "the frontend is served by nginx":
    // otherwise the one who acts comes first.)
    const consumed = passive && CONSUMED.has(verb.lemma);
    for (const a of names(behind)) for (const b of names(subject)) if (consumed) add(b, a); else add(a, b);
    if (from.length && reads) for (const a of names(from)) for (const b of names(subject)) add(a, b);
    const targets = toward.length ? toward : from.length ? (reads ? [] : from) : direct;
    if (targets === direct) for (const p of direct) directObjects.push({ name: p.text, verb: verb.lower });
    // ("jenkins builds a docker image and pushes it to ecr", "the chef cooks the meal": what is made travels on, no box,
    // unless it acts itself later in the sentence: "ci builds an image and then the image goes to the registry".)
    if (subject.length === 1 && direct.length === 0 && behind.length === 0 && (toward.length || from.length) && (passive || MOVES.has(verb.lemma))) wayfarer = { name: subject[0].text, stops: names([...from, ...toward]) };
    const made = targets === direct && MAKES.has(verb.lemma);
    madeSomething ||= made && targets.length > 0;
    for (const a of names(subject)) for (const b of names(targets)) if (!made || actsLater(toks, v, b)) add(a, b);
    if (targets === toward && toward.length) gaps = gapped(toks, i, direct.length > 0, names(subject), toward[toward.length - 1].text, add) || gaps;
  }
  // (A clause that only makes something still reads as one: the step "ci builds an image" of a "then" sentence.)
  return edges.length || madeSomething ? { entities, edges, verbs, resolved, subject: firstSubject, places, objects: directObjects, travelled, gapped: gaps } : null;
}
