// A task spec recovered from the prompt alone, for rows that carry none: which entities it names and which directed
// edges it asks for. Rule-based, over the structures diagram requests are written in: arrow chains ("A -> B -> C"),
// paths ("from A to B to C"), relations ("A sends to B and C", "A, B all feed into C", "A calls B"), sequences
// ("first A, then B"), lists ("pipeline: A, B, C", bullets, numbered steps), nested bullets (a tree), layers
// ("each tier connects to the next"), decisions ("if yes, go to A; if no, go to B") and label requests (which name
// an edge but not an entity). A list becomes a chain only when the prompt says it is a sequence (pipeline, flow, ...).
import type { DiagramSpec } from '../tasks/spec.ts';
import pluralize from 'pluralize';
import { normalizeLabel } from './labels.ts';
import { clauseRelations, clauseSubject, commandStep, isClause, isPastParticiple, nounPhrases } from './clauses.ts';
import { removeChatter } from './chatter.ts';
import { outcomeSteps, readBranches, type Branches } from './extract-condition.ts';
import { BRANCH_SPLIT, findDecision, hasBothBranches, parseBranch, type Branch } from './extract-decision.ts';
import {
  cleanEntity,
  fixStructureTypos,
  isLabelOnly,
  protectQuotes,
  removeParens,
  restoreQuotes,
  segment,
  splitList,
  splitSentences,
  stripLabelRequest,
  type BulletBlock,
} from './extract-text.ts';

export { cleanEntity } from './extract-text.ts';

// "a>b>c" too: a bare > between two words is an arrow in a diagram request.
const ARROW = /\s*(?:-+>|→|=+>|⟶|➔)\s*|\s+>\s+|(?<=[\p{L}\p{N}])>(?=[\p{L}\p{N}])/u;
const HAS_ARROW = /-+>|→|=+>|⟶|➔|<-|←|↔|>>|\s>\s|[\p{L}\p{N}]>[\p{L}\p{N}]/u;
/** The arrows of a chain with their direction: both ways ("client <-> server"), backwards ("cache <- api"), forwards. */
const CONNECTOR = /\s*(?:(<-+>|<=+>|↔)|(<-+|←)|(?:-+>|→|=+>|⟶|➔|>>))\s*|\s+>\s+|(?<=[\p{L}\p{N}])>(?=[\p{L}\p{N}])/gu;
/** "web - api - db": names joined by spaced dashes, read left to right (two dashes at least: one may be prose). */
const DASH = /\s+-{1,2}\s+/;
const THEN_SPLIT = /\s*,?\s*(?:and\s+)?(?:then|finally|next|afterwards|after that)(?:\s*,\s*|\s+)|\s*,?\s*(?:(?:which|that|and)\s+)?(?:(?:is|are)\s+)?followed\s+by\s+|\s*,\s*/i;
const CHAIN_SPLIT = new RegExp(`${ARROW.source}|${THEN_SPLIT.source}`, 'iu');
const WHICH_FOLLOWED = /,?\s*(?:which|that)\s+(?:is|are)\s+followed\s+by/gi;
const HAS_THEN = /\bthen\b|\bfollowed\s+by\b|\bafter\s+that\b|\bafterwards\b/i;
const FIRST_LEAD = /^(?:.*?[:,]\s*)?(?:first(?:ly)?,?|(?:it\s+)?start(?:s|ing)?\s+(?:with|at)|(?:it\s+)?begin(?:s|ning)?\s+(?:with|at))\s+/i;
/** "it goes A, then B": the subject and verb before a sequence. */
const SEQUENCE_LEAD = /^(?:it|this|they|which)\s+(?:goes|go|runs|run|moves|flows|is|are|passes)\s+(?:(?:through|via)\s+)?/i;
const LIST_LEAD = /^.*\b(?:with|including|includes|containing|contains|showing|featuring|of|between|among|for)\s+/i;
/** A class noun before the members it introduces: "with states A, B and C". */
const CLASS_NOUN = /^(?:the\s+)?(?:following\s+)?(?:states|steps|stages|nodes|components|parts|items|boxes|phases|elements|services)\s+(?=\S)/i;
const LIST_TAIL = /(?<!\bafter)\s+(?:where|which|that|so that|connected|linked|wired|arranged|laid out|in\s+(?:a|one)\s+(?:chain|row|line|sequence|circle|loop))\b.*$/i;
/** "Draw nodes X, Y and Z": a drawing verb and a class noun before the members. */
const DRAW_MEMBERS = /^(?:please\s+)?(?:draw|show|make|create|add|sketch)\s+(?:the\s+)?(?:following\s+)?(?:nodes|boxes|states|steps|stages|components|items|shapes|elements)\s+(?!(?:of|for|in|on|at|to|from)\b)(?=\S)/i;
/** "box: laptop": one member after a class noun and a colon. */
const ONE_MEMBER = /^(?:box|node|shape|entity|item|state|component)\s*:\s*(.+)$/i;
/** "S3 to Lambda to DynamoDB": hops joined by "to" alone, each a short name. */
const TO_HOPS = /\s+(?:to|into|in\s+front\s+of)\s+/i;
const FROM_TO = /\bfrom\s+(.+?)\s+(?:to|into|through|via)\s+(.+?)(?=\s*(?:[,.;:!?]|\bthen\b|\bto\b|\band\b|\bwith\b|\bwhere\b|$))/gi;
const THROUGH_TO = /^(.+?)\s+(?:to|into)\s+(.+)$/i;
const CHAIN_MORE = /^\s*,?\s*(?:and\s+)?(?:then\s+)?(?:back\s+|on\s+)?(?:to|into|through|via)\s+(.+?)(?=\s*(?:[,.;:!?]|\bthen\b|\bto\b|\band\b|\bwith\b|\bwhere\b|$))/i;
/** "From the router, draw arrows to ...": the source ends at the comma before the instruction. */
const FROM_AFTER_COMMA = /,\s*(?:draw|add|put|make|show|create|sketch)\b.*$/i;
const FROM_MORE = /^\s*(?:,\s*(?:and\s+)?|\s+and\s+)(?!.*\b(?:to|into|from|then|through|via)\b)([^.!?;]+)/i;
const NOT_TARGET = /^(?:label|make|draw|add|use|keep|put|show|colou?r|place|arrange|please|thanks?)\b/i;
const VIA_NEXT = /^(?:through|via)\b/i;
const FROM_THEN_TO = /\bfrom\b.+\bto\b/i;
/** "arrows into X from A, B": the sources follow the target. */
const INTO_FROM = /\b(?:arrows?|edges?|lines?|links?|connections?|inputs?)\s+(?:in)?to\s+(.+?)\s+from\s+(.+)$/i;
/** "it starts at A, goes through B and C, and ends at D". */
const STARTS_ENDS =
  /\bstarts?\s+(?:at|with|from|in)\s+(.+?)(?:,\s*|\s+and\s+)+(?:(?:then\s+)?(?:goes|passes|runs|moves)\s+(?:through|via)\s+(.+?)(?:,\s*|\s+and\s+)+)?(?:then\s+)?ends?\s+(?:at|with|in)\s+(.+)$/i;
/** "under A: B, C" (a hierarchy). */
const UNDER = /^(?:and\s+)?(?:under|below|beneath)\s+(.+?)\s*:\s*(.+)$/i;
/** "Connections: A to B, B to C" (an edge list). */
const EDGE_LIST = /\b(?:connections?|edges?|links?|arrows?|wiring)\s*:\s*(.+)$|\b(?:connections|edges|links)\s+(?!from\b|between\b|to\b|into\b|in\b|of\b|for\b)(.+)$/i;
const EDGE_ITEM = /^(.+?)(?:\s+back)?\s+(?:to|into|-+>|→)\s+(.+)$/i;
const EDGE_LIST_LEAD = /\b(?:connections?|edges?|links?|arrows?|wiring)\b/i;
/** A list's lead that leaves its verb or preposition waiting for the list: "... an arrow to each of:". */
const DANGLING_LEAD = /\b(?:to|into|from|of|at|on|onto|towards?|by)\s*:\s*$/i;

// Verbs of a relation: "A <verb> [up to two words] <preposition> B" ("sends data to", "fans out to", "has an arrow to").
const LINK_STEMS = [
  'connect', 'lead', 'led', 'point', 'go', 'goes', 'went', 'talk', 'send', 'sent', 'flow', 'feed', 'fed', 'write', 'wrote',
  'route', 'forward', 'pass', 'link', 'hand', 'publish', 'push', 'return', 'fan', 'fann', 'branch', 'split', 'splitt',
  'converge', 'converg', 'loop', 'stream', 'move', 'deliver', 'report', 'output', 'emit', 'emitt', 'pipe', 'transition',
  'escalate', 'escalat', 'respond', 'redirect', 'arrow', 'has', 'have', 'hav', 'upload', 'sync', 'transfer', 'proceed',
  'continue', 'continu', 'drain', 'cascade', 'cascad', 'ship', 'shipp', 'post', 'submit', 'submitt', 'map', 'mapp',
  'come', 'came',
];
const LINK_VERB = `(?:${LINK_STEMS.join('|')})(?:s|es|ed|d|ing)?`;
const PREPOSITION = '(?:to|into|onto|on|at|towards?)';
const LINK = new RegExp(`\\b${LINK_VERB}((?:\\s+[\\w-]+){0,2}?)\\s+${PREPOSITION}\\s+`, 'gi');
/** Transitive verbs; an imperative ("Call the API") has no subject left once the lead words are gone. */
// Stems take -s, -es or -ies ('quer' + 'ies', 'ha' + 's'); the base forms that need their own entry are listed too.
const CALL_STEMS = [
  'call', 'quer', 'query', 'trigger', 'invoke', 'notif', 'notify', 'update', 'feed', 'reach', 'spawn', 'produce', 'generate',
  'emit', 'poll', 'fetch', 'consume', 'use', 'own', 'manage', 'supervise', 'serve', 'drive', 'precede', 'launch', 'schedule',
  'ha', 'have', 'oversee', 'control', 'hit', 'ping', 'become', 'start', 'contact', 'authenticate', 'open',
];
const CALL_VERB = `(?:${CALL_STEMS.join('|')})(?:s|es|ies)?`;
const CALL = new RegExp(`\\b${CALL_VERB}\\s+(?!(?:to|into|from|with|by|of|on|at|for|as|in)\\b)`, 'gi');
/** Verbs whose sources follow them: "the warehouse receives data from A and B". */
const RECEIVE = /\b(?:receives?|gets?|pulls?|reads?|fetches|fetch|ingests?|loads?|consumes?|accepts?|draws?|subscribes?)((?:\s+[\w-]+){0,2}?)\s+from\s+/gi;
/** Any other verb-like word before a preposition ("dispatches jobs to", "are all inputs to"), trusted last. */
const OTHER = /\b(?:is|are|[a-z]{3,}(?:es|s))((?:\s+[\w-]+){0,2}?)\s+(?:to|into|onto)\s+/gi;
/** Splits "A writes to B and C publishes to D" before the second subject, but not "A connects to B and C". */
const CLAUSE_SPLIT = new RegExp(
  `;\\s*|(?:,\\s*|\\s+(?:and|while|but)\\s+)(?=(?:the\\s+)?[\\w-]+(?:\\s+[\\w-]+){0,3}\\s+(?:also\\s+)?(?:all\\s+|each\\s+|both\\s+)?(?:${LINK_VERB}|${CALL_VERB})\\s+\\w)`,
  // Case-sensitive: a capitalised verb inside a sentence is part of a name ("Purchase Order Sent").
  '',
);
/** Words before a relation's subject: "Draw a system where the scheduler triggers ..." */
const SUBJECT_LEAD = /^.*\b(?:where|which|that|while|so|in which|with|showing|shows|how|whose|when|has|have|having|contains?|includes?)\s+/i;
/** "For the blog, the editor submits ...": a phrase setting the scene before the subject. */
// ("Depending on the severity, the triage nurse sends ...", "In our league the referees send ...": where or when, then the
// subject's article.)
const SCENE_LEAD = /^(?:(?:for|in|on|at|during|after|before|once|then|next|finally|depending\s+on|based\s+on)\b[^,:]*,\s*|(?:in|at|on|during)\s+(?:our|the|my|this|their|a)\s+[\w-]+\s+(?=(?:the|our|a|an)\s)|depending\s+on\s+(?:[\w-]+\s+){1,4}?(?=(?:the|our|a|an)\s))/i;
const PLURAL_SUBJECT = /,|\s(?:and|&)\s|\b(?:both|all|each)\s*$/i;
const CAPITALISED_LINK = /^[A-Z]|\s(?:To|Into|Onto|On|At|Towards?|From)\s*$/;
const ALSO = /(?:^|\s+)(?:also|all|each|both|then|is|are|was|were|will be|has been|have been)$/i;
/** Subjects that are the drawing itself, not an entity in it. */
const NOT_SUBJECT = /^(?:it|this|that|which|who|then|they|there|diagram|chart|flowchart|graph|picture|drawing|figure|sketch|image|canvas|you|we|i)$/i;
const SEQUENCE_CUE =
  /\b(?:pipelines?|flows?|process(?:es)?|sequences?|steps?|stages?|chains?|workflows?|funnels?|lifecycles?|journeys?|then|in order|paths?|procedures?|cycles?|loops?|circular|ETL|ELT)\b/i;
/** Adjacent groups joined all to all: "every component in a layer connects to every component in the layer below". */
const TIER_CUE = /\b(?:each|every|all)\b[^.!?\n]*\b(?:next|below|beneath|lower|under(?:neath)?|down)\b/i;
const TIER_WORD = /\b(?:tiers?|layers?|levels?)\b/i;
const TIER_LINE = /^(?:.*[:,]\s*)?(?:the\s+)?[\w/&' -]{1,40}?\s+(?:layer|tier|level)\s*(?::|\b(?:has|have|holds?|contains?|includes?|is|are|with)\b)\s*(.+)$/i;
/** Where one sentence lists several tiers: "top layer has A, middle layer has B". */
const TIER_CHUNKS = /,\s*(?:and\s+)?(?=(?:the\s+)?[\w/&' -]{1,30}?\s+(?:layer|tier|level)\s*(?::|\b(?:has|have|holds?|contains?|includes?|is|are|with)\b))/i;
const TIER_LIST = /\b(?:tiers|layers|levels)\b[^:]*:\s*(.+)$/i;
const TIER_ITEM = /^[^:]{1,40}:\s*(.+)$/;
const TIER_GROUPS = /\s*,?\s*(?:and\s+)?then\s+|\s*;\s*/i;

interface Found {
  entities: string[];
  edges: [string, string][];
  /** Where the sentence just read left a thing it followed from place to place. */
  travelledTo?: string;
}

interface State {
  found: Found;
  /** Lists of entities that become a chain when the prompt is a sequence. */
  listed: string[][];
  tiers: string[][] | undefined;
  /** The decision's node when the prompt has branches for both answers; '' while it is still to be found. */
  decision: string | undefined;
  branchNodes: Set<string>;
  /** The entities the sentence before this one named, in order, and its text. */
  previous: string[];
  previousText: string;
}

const KEY_CACHE_LIMIT = 50_000;
const keys = new Map<string, string>();

/** The canonical form names are compared in (stemmed words, as the reward matches labels); memoised, it is hot. */
function canonical(name: string): string {
  let k = keys.get(name);
  if (k === undefined) {
    k = normalizeLabel(name).compact || name.toLowerCase();
    if (keys.size >= KEY_CACHE_LIMIT) keys.clear();
    keys.set(name, k);
  }
  return k;
}

const addChain = (out: Found, names: string[]) => {
  for (let i = 0; i + 1 < names.length; i++) out.edges.push([names[i], names[i + 1]]);
  out.entities.push(...names);
};

/** A branch: an arrow from what decides to the outcome's first step, then its steps in order. */
const addBranch = (out: Found, decider: string, steps: string[]) => {
  out.edges.push([decider, steps[0]]);
  addChain(out, steps);
};

/** "A -> B -> C" chains; a chain breaks at a sentence or clause boundary between two arrows. */
const GROUP_COMMA = '\u0002';
const BACK_TAIL = /\s*,?\s*(?:and\s+)?(?:then\s+)?(?:(?:goes|go|loops?|comes?)\s+)?back\s+to\s+(.+)$/i;

function arrowChains(sentence: string, out: Found): void {
  if (!HAS_ARROW.test(sentence)) {
    dashChain(sentence, out);
    return;
  }
  // ("lb -> (app1, app2, app3) -> pg": the commas of a group in parentheses are the group's, not the sentence's.)
  const grouped = sentence.replace(/\(([^():'"]*,[^():'"]*)\)/g, (_, inner: string) => inner.replace(/,/g, GROUP_COMMA));
  for (const clause of grouped.split(/\s*,\s*(?=[^,]*(?:-+>|→|=+>|<-|←|↔|>>|\s>\s))/)) {
    const parts: string[] = [];
    const ways: ('both' | 'back' | 'on')[] = [];
    let at = 0;
    for (const m of clause.matchAll(CONNECTOR)) {
      parts.push(clause.slice(at, m.index));
      ways.push(m[1] ? 'both' : m[2] ? 'back' : 'on');
      at = (m.index ?? 0) + m[0].length;
    }
    parts.push(clause.slice(at));
    if (parts.length < 2) continue;
    // Each part may list several nodes ("A -> B, C" fans out); the first part starts after any lead-in.
    // "Plan -> Do -> Check -> Act, then back to Plan": the last node goes back to the one named.
    const back = BACK_TAIL.exec(parts[parts.length - 1]);
    if (back) parts[parts.length - 1] = parts[parts.length - 1].slice(0, back.index);
    // ("act -> back to plan": the arrow was the way back.)
    if (back && !parts[parts.length - 1].trim()) {
      parts.pop();
      ways.pop();
    }
    const groups = parts.map((p, i) => {
      let text = p.replaceAll(GROUP_COMMA, ',');
      if (i === 0) text = text.slice(text.lastIndexOf(':') + 1).replace(LIST_LEAD, '');
      if (i === parts.length - 1) text = text.replace(LIST_TAIL, '');
      return splitList(text);
    });
    const target = back && cleanEntity(back[1].replace(/\s+(?:if|when|unless|once)\b.*$/i, ''));
    if (target) {
      for (const a of groups[groups.length - 1]) out.edges.push([a, target]);
      out.entities.push(target);
    }
    for (let i = 0; i + 1 < groups.length; i++) {
      for (const a of groups[i]) {
        for (const b of groups[i + 1]) {
          if (ways[i] !== 'back') out.edges.push([a, b]);
          if (ways[i] !== 'on') out.edges.push([b, a]);
        }
      }
    }
    for (const g of groups) out.entities.push(...g);
  }
}

function dashChain(sentence: string, out: Found): void {
  const parts = sentence.replace(/[.!?]+$/, '').split(DASH);
  if (parts.length < 3) return;
  const names = parts.map((p) => cleanEntity(p));
  if (names.some((n) => !n || n.split(' ').length > TERSE_NAME_WORDS)) return;
  addChain(out, names);
}

/** "from A to B", "from A through B to C", "from A to B, then to C"; "arrows into X from A and B". */
function fromTo(sentence: string, out: Found): void {
  const into = INTO_FROM.exec(sentence);
  if (into) {
    const target = cleanEntity(into[1]);
    const sources = splitList(into[2].replace(LIST_TAIL, ''));
    if (target && sources.length) {
      for (const s of sources) out.edges.push([s, target]);
      out.entities.push(...sources, target);
      return;
    }
  }
  for (const m of sentence.matchAll(FROM_TO)) {
    let source = m[1];
    let second = m[2];
    let next = (m.index ?? 0) + m[0].length;
    // "from Promote to Production to Notify": a name that holds "to" and is already known stays whole.
    const onward = TO_NEXT.exec(sentence.slice(next));
    if (onward && isKnown(`${source} to ${second}`, out)) {
      source = `${source} to ${second}`;
      second = onward[1];
      next += onward[0].length;
    }
    const sources = splitList(source.replace(FROM_AFTER_COMMA, ''));
    const hops: string[] = [];
    // "from A through B to C": the lazy match stopped at "through"; the rest names the next hops.
    const via = m[0].slice(m[0].indexOf(m[1]) + m[1].length).trimStart();
    if (VIA_NEXT.test(via)) {
      const t = THROUGH_TO.exec(second);
      if (t) {
        hops.push(t[1]);
        second = t[2];
      }
    }
    hops.push(second);
    let rest = sentence.slice(next);
    for (let more = CHAIN_MORE.exec(rest); more; more = CHAIN_MORE.exec(rest)) {
      hops.push(more[1]);
      rest = rest.slice(more.index + more[0].length);
    }
    const names = hops.map((p) => cleanEntity(p));
    if (sources.length === 0 || names.some((n) => !n)) continue;
    for (const s of sources) out.edges.push([s, names[0]]);
    out.entities.push(...sources);
    addChain(out, names);
    // "from A to B, C and D": the list goes on after the first target, with no further hop.
    const more = sources.length === 1 && names.length === 1 ? FROM_MORE.exec(rest) : null;
    if (more) {
      const extra = splitList(removeParens(more[1]).replace(LIST_TAIL, '')).filter((x) => !NOT_TARGET.test(x));
      for (const x of extra) out.edges.push([sources[0], x]);
      out.entities.push(...extra);
    }
  }
}

const TO_NEXT = /^\s+(?:to|into)\s+(.+?)(?=\s*(?:[,.;:!?]|\bthen\b|\bto\b|\band\b|\bwith\b|\bwhere\b|$))/i;

function isKnown(name: string, found: Found): boolean {
  const clean = cleanEntity(name);
  const k = canonical(clean);
  return clean !== '' && found.entities.some((e) => canonical(e) === k);
}

/** "it starts at A, goes through B and C, and ends at D": a chain. */
function startsEnds(sentence: string, out: Found): void {
  const m = STARTS_ENDS.exec(sentence);
  if (!m) return;
  const names = [cleanEntity(m[1]), ...(m[2] ? splitList(m[2]) : []), cleanEntity(m[3])];
  if (names.some((n) => !n)) return;
  addChain(out, names);
}

/** "under A: B and C": A is the parent of each. */
function under(sentence: string, out: Found): void {
  const m = UNDER.exec(sentence);
  if (!m) return;
  const parent = cleanEntity(m[1]);
  const children = splitList(m[2]);
  if (!parent || children.length === 0) return;
  for (const c of children) out.edges.push([parent, c]);
  out.entities.push(parent, ...children);
}

/** "Connect A to B, C and D" (an instruction naming the edges). */
const CONNECT = /\b(?:connect|link|join|wire|attach|hook\s+up)\s+(.+?)\s+(?:to|with|into)\s+(.+)$/i;
/** "A is the parent of B and C"; "B and C are children of A". */
const PARENT_OF = /^(.+?)\s+(?:is|are)\s+(?:the\s+)?(?:parents?|roots?|heads?)\s+(?:of|over|above)\s+(.+)$/i;
const CHILD_OF = /^(.+?)\s+(?:is|are)\s+(?:the\s+|a\s+)?(?:child(?:ren)?|subordinates?|subsidiar(?:y|ies)|members?|parts?)\s+(?:of|under)\s+(.+)$/i;

function connectOrParent(sentence: string, out: Found): void {
  const c = CONNECT.exec(sentence);
  const p = c ? null : PARENT_OF.exec(sentence);
  const k = c || p ? null : CHILD_OF.exec(sentence);
  const [parents, children] = c || p ? [(c ?? p)![1], (c ?? p)![2]] : k ? [k[2], k[1]] : ['', ''];
  const from = splitList(parents.replace(SUBJECT_LEAD, ''));
  const to = splitList(children.replace(LIST_TAIL, ''));
  if (from.length === 0 || to.length === 0) return;
  for (const a of from) for (const b of to) out.edges.push([a, b]);
  out.entities.push(...from, ...to);
}

/** "Connections: A to B, B to C": one edge per item. */
function edgeList(sentence: string, out: Found): void {
  const m = EDGE_LIST.exec(sentence);
  if (!m) return;
  const items = (m[1] ?? m[2]).split(/\s*,\s*(?:and\s+)?|\s+and\s+(?=[^,]+\s(?:to|into)\s)/i);
  // A colon after "connection" may just end a title ("TCP connection: A, B, C"): most items must be edges.
  const edges: Found = { entities: [], edges: [] };
  for (const item of items) edgeItem(item, edges);
  if (edges.edges.length * 2 < items.length) return;
  out.edges.push(...edges.edges);
  out.entities.push(...edges.entities);
}

function edgeItem(item: string, out: Found): boolean {
  const e = EDGE_ITEM.exec(removeParens(item));
  if (!e) return false;
  const a = cleanEntity(e[1]);
  const b = cleanEntity(e[2]);
  if (!a || !b) return false;
  out.edges.push([a, b]);
  out.entities.push(a, b);
  return true;
}

interface Verb {
  subject: string;
  object: string;
  /** The object names the sources ("receives from"). */
  reversed: boolean;
  cost: number;
}

const VERB_RULES: [re: RegExp, reversed: boolean, cost: number][] = [
  [LINK, false, 0],
  [CALL, false, 0.5],
  [RECEIVE, true, 0.5],
  [OTHER, false, 2.5],
];

/** The relation verb in a clause: the cheapest candidate, a known verb with few words before its preposition. */
function findVerb(clause: string): Verb | undefined {
  let best: Verb | undefined;
  for (const [re, reversed, base] of VERB_RULES) {
    re.lastIndex = 0;
    for (const m of clause.matchAll(re)) {
      const at = m.index ?? 0;
      // A capitalised verb or preposition inside a sentence belongs to a name ("Alice On Call", "Query Strategy").
      if (at === 0 || CAPITALISED_LINK.test(m[0])) continue;
      const subject = clause.slice(0, at);
      // A verb without -s needs a plural subject ("A and B call C"); otherwise it is an instruction ("fetch data").
      if (re === CALL && !/s\s*$/i.test(m[0]) && !PLURAL_SUBJECT.test(subject)) continue;
      const cost = base + (m[1] ?? '').trim().split(/\s+/).filter(Boolean).length;
      if (!best || cost < best.cost) best = { subject, object: clause.slice(at + m[0].length), reversed, cost };
    }
  }
  return best;
}

/** Targets of a relation: a list fans out, "A, then B" is a chain, and a later "X to Y" item is an edge of its own. */
function relationTargets(source: string[], object: string, out: Found): string[] {
  const text = object.replace(LIST_TAIL, '');
  if (HAS_THEN.test(text)) {
    const names = text.split(THEN_SPLIT).map((p) => cleanEntity(p)).filter(Boolean);
    if (names.length === 0) return [];
    for (const s of source) out.edges.push([s, names[0]]);
    addChain(out, names);
    out.entities.push(...source);
    return names.slice(-1);
  }
  const items = text.split(/\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or|&)\s+/i);
  const targets: string[] = [];
  items.forEach((item, i) => {
    if (i > 0 && edgeItem(item, out)) return;
    const name = cleanEntity(item);
    if (name) targets.push(name);
  });
  for (const a of source) for (const b of targets) out.edges.push([a, b]);
  out.entities.push(...(targets.length ? source : []), ...targets);
  return targets;
}

/** A clause whose subject is the last one's target: "B, which feeds C", "goes to B and then goes to C". */
const RELATIVE = /^(?:,\s*)?(?:which|that|who|then|and\s+(?:that|it|then))\b/i;

/** "A connects to B, C and D" (fan-out), "A and B send data to C" (fan-in), "A calls B", "B, which feeds C". */
function relations(sentence: string, out: Found): void {
  // Commas may separate a list of subjects ("Web, mobile and desktop clients connect to ..."), so a clause that
  // does not hold a relation is carried into the next one instead of being dropped.
  let carry = '';
  let last: string[] = [];
  for (const part of sentence.split(CLAUSE_SPLIT)) {
    const clause = carry ? `${carry}, ${part}` : part;
    const v = findVerb(clause);
    if (!v) {
      carry = clause;
      continue;
    }
    carry = '';
    const relative = RELATIVE.test(v.subject.trim());
    const subject = v.subject.trim().replace(SUBJECT_LEAD, '').replace(SCENE_LEAD, '').replace(ALSO, '');
    let sources = splitList(subject).filter((s) => !NOT_SUBJECT.test(s));
    if (sources.length === 0 && relative) sources = last;
    if (sources.length === 0) continue;
    if (v.reversed) {
      const from = splitList(v.object.replace(LIST_TAIL, '').replace(/\bfrom\s+/gi, ''));
      if (from.length === 0) continue;
      for (const s of from) for (const t of sources) out.edges.push([s, t]);
      out.entities.push(...sources, ...from);
      last = sources;
    } else last = relationTargets(sources, v.object, out);
  }
}

/**
 * A sentence written as prose, read by its grammar (clauses.ts): "the crawler sends pages to the parsers and the
 * parsers store links in the index". A "then" sentence only when each of its steps is such a clause ("git push
 * triggers ci, then ci builds an image"); otherwise its steps are the chain (thenSequence).
 */
function prose(sentence: string): (Found & { verbs: string[]; resolved: boolean; travelled: boolean; gapped: boolean }) | null {
  // (A "then" after "which" is the relative clause's own: "..., which then passes them on to payments"; so is one
  // after an auxiliary: "Planks and ingots are then combined into tools".)
  const steps = sentence.replace(/\b(which|who|is|are|was|were|be|been|gets?)\s+then\b/gi, '$1');
  const found = clauseRelations(sentence);
  if (!found) return null;
  // (Or where the whole sentence is a route from place to place: "Water samples are collected at the creek, then
  // filtered in the field lab, next they're shipped to the university lab".)
  const route = found.travelled || (found.edges.length >= 2 && found.edges.every(([a, b]) => found.places.includes(a) && found.places.includes(b)));
  // (A part that only sets the scene is no step: "at the farm, the harvester dumps ..., and then ...".)
  const scene = (p: string) => /^\s*(?:(?:ok|okay|so|well|um|basically)\s+)*(?:at|in|on|for|during)\s/i.test(p) && !isClause(p);
  if (HAS_THEN.test(steps) && !route && !steps.split(THEN_SPLIT).filter((p) => p.trim() && !scene(p)).every((p) => clauseRelations(p) !== null)) return null;
  const name = (n: string) => cleanEntity(n, true);
  const out = { entities: found.entities.map(name).filter(Boolean), edges: [] as [string, string][], verbs: found.verbs, resolved: found.resolved, travelled: found.travelled, gapped: found.gapped };
  for (const [a, b] of found.edges) if (name(a) && name(b)) out.edges.push([name(a), name(b)]);
  return out;
}

/** A word that joins a clause, not a name: "images to browsers", "frontend is served by nginx", "returns it". */
const CLAUSE_WORD = /(?:^|\s)(?:to|into|in|is|are|was|were|by|from|over|via|through|the|a|an)\s/;
const PRONOUN_WORD = /(?:^|\s)(?:it|them|they|those|these|there|here)(?:\s|$|['’])/i;
/** A passive inside a name: "strips are fed", "parcels are sent". */
const PASSIVE_WORDS = /\s(?:is|are|was|were)\s+([a-z]+)$/i;
const passiveInside = (name: string) => isPastParticiple(PASSIVE_WORDS.exec(name)?.[1] ?? '');

/** The rules that read a sentence by its words (verbs and prepositions), tried in turn until one finds edges. */
const WORDED_RULES = [fromTo, startsEnds, under, connectOrParent, relations];

/**
 * The worded rules' reading of a sentence, or its grammar's (prose) where the rules' reading swallowed a clause into a
 * name ("customers place orders" -> warehouse, where the grammar reads customers -> orders -> warehouse), or, after a
 * relation verb, where the grammar reads more edges (after a path, more edges and all of the path's): the rules know the
 * phrasings of generated requests, the grammar the rest. A path ("from A to B", a label request's) is the grammar's only where the rules' names hold a clause's
 * words: made-up names the tagger reads as verbs ("her brobo grant") are common there.
 */
function wordedOrProse(sentence: string, out: Found): void {
  // The rules read the names found so far ("from Promote to Production to ..." keeps a known name whole).
  const known = out.entities.length;
  const rules: Found = { entities: [...out.entities], edges: [] };
  let winner: (typeof WORDED_RULES)[number] | undefined;
  for (const rule of WORDED_RULES) {
    rule(sentence, rules);
    if (rules.edges.length > 0) {
      winner = rule;
      break;
    }
  }
  rules.entities.splice(0, known);
  const grammar = prose(sentence);
  let pick: Found = rules;
  if (grammar && grammar.edges.length > 0) {
    const edgeKey = ([a, b]: [string, string]) => `${canonical(a)}\u0000${canonical(b)}`;
    const grammarEdges = new Set(grammar.edges.map(edgeKey));
    // (The rules' edges counted as the spec will hold them: once each, no loops.)
    const ruleEdges = new Set(rules.edges.filter(([a, b]) => canonical(a) !== canonical(b)).map(edgeKey)).size;
    const keys = new Set(grammar.entities.map(canonical));
    const inside = (e: string) => grammar.entities.filter((g) => e.length > g.length && ` ${e} `.includes(` ${g} `));
    const clause = (e: string) => inside(e).length >= 2 || (inside(e).length === 1 && CLAUSE_WORD.test(e)) || PRONOUN_WORD.test(e) || passiveInside(e);
    // A name holding a verb the grammar read an edge from ("user searches") is a clause too, where the grammar reads
    // as many edges.
    const verbs = new Set(grammar.verbs.filter((v) => v === v.toLowerCase()));
    const holdsVerb = (e: string) => grammar.edges.length >= ruleEdges && e.split(' ').some((w) => verbs.has(w));
    const relation = winner === undefined || winner === relations;
    // (A bare count or article is what is left of a name the rules cut: "two foragers bring nectar to ..." -> two; "A"
    // alone is a name.)
    const count = (e: string) => /^\d+$/.test(e) || COUNT_WORDS.includes(e.toLowerCase()) || /^(?:[Tt]he|an?|[Tt]his|[Tt]hat|[Tt]hese|[Tt]hose)$/.test(e);
    const swallowed = rules.entities.some((e) => !keys.has(canonical(e)) && (clause(e) || count(e) || (relation && holdsVerb(e))));
    // Where both read as many edges between the same names, the grammar knows which clause each verb is in: "the
    // editor publishes articles to the website, and readers visit the website" (the rules: editor -> readers).
    const sameNames = keys.size === new Set(rules.entities.map(canonical)).size && rules.entities.every((e) => keys.has(canonical(e)));
    const more = grammar.edges.length > ruleEdges || (relation && sameNames && grammar.edges.length === ruleEdges);
    // The rules do not read a pronoun object ("... and three consumers read from it"); the grammar does.
    const resolved = relation && grammar.resolved && grammar.edges.length >= ruleEdges;
    // Where the rules' extra edges skip a name the grammar passes through ("trucks bring stuff to the sorting line,
    // sorting line splits it into ...": the rules' trucks -> glass bin), the grammar read the clauses apart.
    const extra = rules.edges.filter((e) => !grammarEdges.has(edgeKey(e)));
    const skips = extra.length > 0 && extra.every(([a, b]) => grammar.edges.some(([x, y]) => canonical(x) === canonical(a) && grammarEdges.has(edgeKey([y, b]))));
    // (What the grammar followed from place to place is a route the rules cannot read: "Coils arrive at the receiving
    // dock and are moved to the slitting line"; and so is a clause that leaves out its verb: "... and large files to the
    // batch queue".)
    if (swallowed || resolved || grammar.travelled || grammar.gapped || (skips && rules.entities.every((e) => keys.has(canonical(e)))) || (more && (relation || rules.edges.every((e) => grammarEdges.has(edgeKey(e)))))) pick = grammar;
  }
  out.edges.push(...pick.edges);
  out.entities.push(...pick.entities);
  if (pick === grammar && grammar.travelled) out.travelledTo = pick.edges[pick.edges.length - 1]?.[1];
}

/** A list of steps that ends by going back: "..., and go back to run tests", "..., repeat from read input". */
const LOOP_BACK =
  /(?:^|,\s*|\s+)(?:and\s+)?(?:then\s+)?(?:(?:(?:go(?:es)?|loops?|jumps?|comes?)\s+)?back\s+to|returns?\s+to|repeats?\s+(?:from|with)|starts?\s+over\s+(?:at|from|with))\s+(.+?)\s*$/i;
/** ... or by starting over: "measure, adjust, measure again", "..., and repeat". */
const LOOP_AGAIN = /(?:^|,\s*|\s+)(?:and\s+)?(?:then\s+)?(?:repeats?|starts?\s+over|loops?|(?:do|does)\s+it\s+again|again)\s*$/i;
const UNTIL_TAIL = /\s+(?:until|till|unless|while)\b.*$/i;
const STEP_SPLIT = /\s*,\s*(?:and\s+)?(?:then\s+)?|\s+(?:and\s+)?then\s+/i;
/** Words a step of a loop holds at most: longer parts are clauses, which the other rules read. */
const LOOP_STEP_WORDS = 4;

/** A loop of short steps: the steps in order, and an arrow from the last back to the one named (or to the first). */
function loopSteps(sentence: string, out: Found): void {
  let text = sentence.replace(/[.!?]+$/, '').replace(UNTIL_TAIL, '');
  text = text.slice(text.lastIndexOf(':') + 1);
  const back = LOOP_BACK.exec(text);
  const again = back ? null : LOOP_AGAIN.exec(text);
  const end = back ?? again;
  if (!end) return;
  const parts = text.slice(0, end.index).split(STEP_SPLIT).filter((p) => p.trim());
  if (parts.length < 2 || parts.some((p) => p.trim().split(/\s+/).length > LOOP_STEP_WORDS || /\s(?:to|into|from)\s/i.test(` ${p} `))) return;
  const steps = parts.map((p) => cleanEntity(p, true)).filter(Boolean);
  // "measure, adjust, measure again": a last step that repeats an earlier one is the arrow back to it.
  const last = steps[steps.length - 1];
  const repeated = again ? steps.slice(0, -1).find((x) => canonical(x) === canonical(last)) : undefined;
  if (repeated) steps.pop();
  const target = back ? cleanEntity(back[1], true) : (repeated ?? steps[0]);
  if (steps.length < 2 || !target) return;
  addChain(out, steps);
  out.edges.push([steps[steps.length - 1], target]);
  out.entities.push(target);
}

/** "first A, then B, then C" or "A then B then C": a chain. */
function thenSequence(sentence: string, out: Found): void {
  if (!HAS_THEN.test(sentence) || FROM_THEN_TO.test(sentence)) return;
  let text = sentence.replace(WHICH_FOLLOWED, ', followed by').replace(LIST_TAIL, '');
  if (FIRST_LEAD.test(text)) text = text.replace(FIRST_LEAD, '');
  else if (text.includes(':')) text = text.slice(text.lastIndexOf(':') + 1);
  else text = text.replace(LIST_LEAD, '');
  text = text.trim().replace(SEQUENCE_LEAD, '');
  const names = text.split(THEN_SPLIT).map((p) => cleanEntity(p)).filter(Boolean);
  if (names.length < 2) return;
  addChain(out, names);
}

/** "pipeline: A, B, C" or "with A, B and C": entities, in order. */
function listItems(full: string): string[] {
  const sentence = removeParens(full);
  const one = ONE_MEMBER.exec(sentence);
  if (one) return splitList(one[1]);
  let text: string;
  if (sentence.includes(':')) text = sentence.slice(sentence.lastIndexOf(':') + 1);
  else if (LIST_LEAD.test(sentence)) text = sentence.replace(LIST_LEAD, '').replace(CLASS_NOUN, '');
  else if (DRAW_MEMBERS.test(sentence)) text = sentence.replace(DRAW_MEMBERS, '');
  else return [];
  text = text.replace(LIST_TAIL, '');
  const items = splitList(text);
  return items.length >= 2 ? items : [];
}

/** Words a name in a terse edge list holds at most ("idle to running, running to done"). */
const TERSE_NAME_WORDS = 4;

/** "idle to running, running to done, done to idle": two or more "A to B" items, each an edge. */
function edgeItems(sentence: string, out: Found): boolean {
  const items = sentence.replace(/[.!?]+$/, '').split(/\s*,\s*(?:and\s+)?|\s+and\s+/i).filter((i) => i.trim());
  if (items.length < 2) return false;
  const found: Found = { entities: [], edges: [] };
  for (const item of items) if (!edgeItem(item, found)) return false;
  if (found.entities.some((e) => e.split(' ').length > TERSE_NAME_WORDS)) return false;
  out.edges.push(...found.edges);
  out.entities.push(...found.entities);
  return true;
}

/** "api gw fans out: users svc, orders svc", "kafka: 2 producers in, 2 consumers out": a name, and a list after a colon
 *  that a relation verb before it, or "in"/"out" after each item, says the direction of. */
const FANS_OUT = /^(.+?)\s+(?:fans?\s+out|branches(?:\s+out)?|splits|feeds|sends|connects|calls|points|leads|goes|routes)(?:\s+(?:to|into|out))?\s*:\s*(.+)$/i;
const IN_OUT = /^(.+?)\s+(in|out|inputs?|outputs?)$/i;

function colonFans(sentence: string, out: Found): void {
  const text = sentence.replace(/[.!?]+$/, '');
  const fan = FANS_OUT.exec(text);
  if (fan) {
    const source = cleanEntity(fan[1]);
    const targets = splitList(fan[2]);
    if (source && targets.length) {
      for (const t of targets) out.edges.push([source, t]);
      out.entities.push(source, ...targets);
    }
    return;
  }
  const colon = text.indexOf(':');
  if (colon === -1) return;
  const hub = cleanEntity(text.slice(0, colon));
  const items = text.slice(colon + 1).split(/\s*,\s*(?:and\s+)?|\s+and\s+/i).map((i) => IN_OUT.exec(i.trim()));
  if (!hub || items.length < 2 || items.some((m) => m === null)) return;
  for (const m of items) {
    const name = cleanEntity(m![1]);
    if (!name) return;
    out.entities.push(name);
    out.edges.push(/^in/i.test(m![2]) ? [name, hub] : [hub, name]);
  }
  out.entities.push(hub);
}

/** "S3 to Lambda to DynamoDB": three or more short names joined by "to" alone (two could be any sentence). */
function toHops(sentence: string, out: Found): void {
  if (/\bfrom\b/i.test(sentence) || edgeItems(sentence, out)) return;
  const parts = sentence.split(TO_HOPS);
  if (parts.length < 3) return;
  // ("a two-tier cache, an L1 cache in front of an L2 cache in front of main memory": the hops after what they show.)
  const lead = cleanEntity(parts[0]);
  if (parts[0].includes(',') && (!lead || lead.split(' ').length > 4)) parts[0] = parts[0].slice(parts[0].lastIndexOf(',') + 1);
  const names = parts.map((p) => cleanEntity(p));
  if (names.some((n) => !n || n.split(' ').length > 4)) return;
  addChain(out, names);
}

/**
 * Branches written as conditions (extract-condition.ts): an arrow from what decides to each outcome's first step. What
 * decides is named in the sentence, or is the thing the branches qualify where the sentence before named it ("the
 * build runs tests; passing tests trigger deploy, ..."), or the first thing the sentence before named.
 */
/** A checking verb and what it checks: "the auth service checks the password", "the scanner reads its label". */
const CHECKS = /\b(?:checks?|verif(?:y|ies)|validates?|inspects?|examines?|reads?|scans?|screens?|evaluates?)\s+(?:the|its|their|his|her|a|an)\s+([\w-]+(?:\s+[\w-]+)?)\s*[.,;:!?]?\s*$/i;

/**
 * What the sentence before branches checks is what the branches are about, not a box: "The auth service checks the
 * password. If it's correct, ..." (the arrow from the auth service to the password goes, and the password, where
 * nothing else joins it).
 */
function dropChecked(state: State): string | undefined {
  const m = CHECKS.exec(state.previousText);
  if (!m) return undefined;
  const checked = canonical(m[1]);
  const out = state.found;
  const kept = out.edges.filter(([, b]) => canonical(b) !== checked);
  if (kept.length === out.edges.length) return undefined;
  const checker = out.edges.find(([, b]) => canonical(b) === checked)![0];
  out.edges.splice(0, out.edges.length, ...kept);
  if (!kept.some(([a, b]) => canonical(a) === checked || canonical(b) === checked)) {
    out.entities.splice(0, out.entities.length, ...out.entities.filter((e) => canonical(e) !== checked));
  }
  state.previous = state.previous.filter((e) => canonical(e) !== checked);
  return checker;
}

function conditionBranches(b: Branches, state: State): void {
  const checker = dropChecked(state);
  const out = state.found;
  const named = b.qualified && state.previous.find((e) => canonical(e) === canonical(b.qualified!));
  // A sentence before that named nothing is a step of its own: "check the password; if it is right ...".
  const step = state.previousText ? (clauseSubject(state.previousText) ?? cleanEntity(state.previousText, true)) : '';
  const before = b.before?.map(([x, y]): [string, string] => [cleanEntity(x, true), cleanEntity(y, true)]).filter(([x, y]) => x && y) ?? [];
  for (const [x, y] of before) {
    out.edges.push([x, y]);
    out.entities.push(x, y);
  }
  const led = b.verdicts ? state.previous[state.previous.length - 1] : undefined;
  const decider = before.length ? before[before.length - 1][1] : (b.decider ?? named ?? led ?? checker ?? state.previous[0] ?? step);
  if (!decider) return;
  out.entities.push(decider);
  for (const steps of b.outcomes) addBranch(out, decider, steps);
}

const CLAUSE_STEP_SPLIT = /\s*,\s*(?:and\s+)?(?:then\s+)?|\s+and\s+then\s+/i;
const PRONOUN_SUBJECT = /^(?:we|they|you|u|i|he|she|it)\s+/i;
/** Clauses in a row that make the fewest steps of a process. */
const MIN_CLAUSE_STEPS = 3;

/** "visitor fills form, we send verification email, they click link, account activated": three or more clauses in a
 *  row, with nothing else to read, are a process's steps in order (a pronoun subject is no part of a step's name). */
function clauseSteps(sentence: string, out: Found): void {
  const text = sentence.replace(/[.!?]+$/, '');
  // ("my sourdough routine: feed the starter, wait til its bubbly, mix w flour, ...": the steps after what they are.)
  const parts = text.slice(text.indexOf(':') + 1).split(CLAUSE_STEP_SPLIT).filter((p) => p.trim());
  // (A command of one word may be a name: "with commit, tests, build, deploy".)
  const step = (p: string) => isClause(p) || (/\S\s+\S/.test(p.trim()) && commandStep(p.trim()) !== null);
  if (parts.length < MIN_CLAUSE_STEPS || !parts.every(step)) return;
  const steps = parts.map((p) => cleanEntity(p.trim().replace(PRONOUN_SUBJECT, ''), true)).filter(Boolean);
  if (steps.length === parts.length) addChain(out, steps);
}

/** A condition of time and a command: "When a ticket comes in, check priority". */
const WHEN_COMMAND = /^(?:when(?:ever)?|once|as soon as)\s+([^,;:]{3,60}),\s*([^,;:]+?)[.!?]*$/i;
const ONE_BRANCH = /^(?:and\s+)?(?:if|unless|in case)\b[^,;:]{1,60},\s*(.+)$/i;
/** The other branch, alone after the one before: "...; otherwise they wait in the waiting room". */
const OTHERWISE = /^(?:otherwise|else|if not),?\s+(.+)$/i;

/** "Extractor: writes to Staging Bucket": a name, a colon and what it does (a verb's -s form first). */
const NAME_DOES = /^([^:,;]{1,40}?)\s*:\s*([a-z]+s\s+\S.*)$/;

/** When a step of a sequence happens, which is no step itself: "..., and once it's back up, uncordon it", "once that's
 *  done the hook reloads nginx", "before you lock up, set the alarm". ("when"/"if" clauses are conditions.) */
const TIME_CLAUSE = /(^|,\s*)(?:and\s+)?(?:once|before|after(?!\s+th(?:at|is)\b)|as soon as)\s+[^,:;]{1,40},\s*/gi;
const DONE_CLAUSE = /\b(?:once|when|after)\s+(?:that|this|it)(?:'s|\s+is|\s+has)?\s+(?:done|finished|finishes|complete|completed|over|ready)\b,?\s*/gi;
const dropTimeClauses = (text: string) => text.replace(DONE_CLAUSE, '').replace(TIME_CLAUSE, '$1');

const TOPIC_DASH = /^([^—–]{1,60}?)\s+[—–]\s+(?=\S)/;

/** Every rule that reads edges from one sentence, until one finds some; a list without edges is kept for later. */
function general(full: string, state: State): void {
  const out = state.found;
  // ("hey quick one - supplier ships to warehouse": what is said to the reader is no part of a name.)
  // (A sentence that is all chatter to its end is read whole: "when you get a chance could you sketch A talking to B".)
  const chatless = removeChatter(full);
  // ("ya the recycling thing — trucks bring stuff to ...": a topic before a dash, where a clause follows.)
  const topic = TOPIC_DASH.exec(chatless);
  const told = topic && !isClause(topic[1]) && isClause(chatless.slice(topic[0].length)) ? chatless.slice(topic[0].length) : chatless;
  const said = (HAS_THEN.test(told) ? dropTimeClauses(told) : told).replace(/^\s*[-–—,]\s*/, '');
  const sentence = /\w/.test(said) ? said : full;
  const does = NAME_DOES.exec(sentence.trim());
  if (does && !isClause(does[1]) && cleanEntity(does[1]) === does[1].trim() && commandStep(does[2]) !== null) {
    general(`${does[1]} ${does[2]}`, state);
    return;
  }
  const branches = readBranches(sentence);
  if (branches) {
    conditionBranches(branches, state);
    return;
  }
  // "When a ticket comes in, check priority.": what comes, then the step it sets going.
  const when = WHEN_COMMAND.exec(sentence.trim());
  const step = when && commandStep(when[2]);
  const what = step && (clauseSubject(when![1]) ?? nounPhrases(when![1])[0]);
  if (step && what && isClause(when![1])) {
    const names = [cleanEntity(what, true), cleanEntity(step, true)];
    if (names.every(Boolean)) {
      addChain(out, names);
      return;
    }
  }
  // The other branch alone, from what decided last ("...; otherwise they wait in the waiting room").
  const other = OTHERWISE.exec(sentence.trim());
  const from = out.edges[out.edges.length - 1]?.[0];
  const otherSteps = other && from ? outcomeSteps(other[1]) : [];
  if (otherSteps.length) {
    addBranch(out, from!, otherSteps);
    return;
  }
  // One branch alone ("If the address is local, the Hub routes it to the Local Van"): what happens then, the condition
  // no box.
  const alone = ONE_BRANCH.exec(sentence.trim());
  if (alone && /\w/.test(alone[1])) {
    dropChecked(state);
    const edges = out.edges.length;
    general(alone[1], state);
    // ("... the Hub routes it to the Local Van. If it's out of state, it goes to Air Freight instead.": where "it" goes
    // then, from what decided last.)
    const decider = out.edges[edges - 1]?.[0];
    const steps = out.edges.length === edges && decider && PRONOUN_SUBJECT.test(alone[1]) ? outcomeSteps(alone[1]) : [];
    if (steps.length) addBranch(out, decider!, steps);
    return;
  }
  const before = out.edges.length;
  const rules = [arrowChains, edgeList, colonFans, loopSteps, wordedOrProse, thenSequence, toHops, clauseSteps];
  for (const rule of rules) {
    rule(sentence, out);
    if (out.edges.length > before) return;
  }
  const items = listItems(sentence);
  if (items.length) state.listed.push(items);
}

/** "if yes, go to A, then B": the question, then the branch's steps in order. */
function branch(b: Branch, state: State): void {
  const names = b.rest.split(CHAIN_SPLIT).map((p) => cleanEntity(p)).filter(Boolean);
  if (names.length === 0) return;
  const question = state.decision || state.found.entities[state.found.entities.length - 1];
  if (!question) return;
  state.decision = question;
  addChain(state.found, [question, ...names]);
  for (const n of names) state.branchNodes.add(n);
}

/** A tier: "Presentation layer: A, B", or in a bulleted list of tiers "Presentation: A, B". */
function tierGroups(sentence: string, bullet: boolean): string[][] {
  const chunks = sentence.split(TIER_CHUNKS);
  const lines = chunks.map((c) => TIER_LINE.exec(c) ?? (bullet ? TIER_ITEM.exec(c) : null));
  if (lines.every((l) => l !== null)) {
    return lines.map((l) => splitList(removeParens(l![1]))).filter((g) => g.length > 0);
  }
  const list = TIER_LIST.exec(sentence);
  if (!list) return [];
  // "A and B (Name), then C (Name)" or "Name (A, B), Name (C)": the side of the brackets that holds lists holds items.
  const bracketed = [...list[1].matchAll(/([^,;()]+?)\s*\(([^)]+)\)/g)];
  const listy = (t: string) => /,|\s(?:and|&)\s/.test(t);
  if (bracketed.length >= 2 && bracketed.filter((m) => listy(m[2])).length > bracketed.filter((m) => listy(m[1])).length) {
    return bracketed.map((m) => splitList(m[2])).filter((g) => g.length > 0);
  }
  const groups = list[1].split(TIER_GROUPS).map((g) => splitList(removeParens(g))).filter((g) => g.length > 0);
  return groups.length >= 2 ? groups : [];
}

function sentenceOrClause(text: string, state: State, bullet: boolean): boolean {
  // ("... are moved to the slitting line. From there, strips are fed into the stamping press.": there is the last thing
  // the sentence before named.)
  const there = state.previous[state.previous.length - 1];
  let s = stripLabelRequest(text).replace(/^(\s*)from there\b/i, (m, space: string) => (there ? `${space}From the ${there}` : m));
  // ("The ore is mined at the pit, then trucked to the crusher; after that the conveyor takes it to the mill": "it"
  // goes on from where the sentence before left it.)
  const onWay = state.found.travelledTo;
  state.found.travelledTo = undefined;
  if (onWay && !/^\s*from\b/i.test(s) && /\b(?:it|they|them)\b/i.test(s)) s = `From the ${onWay}, ${s.trimStart()}`;
  if (isLabelOnly(s)) return false;
  const before = state.found.edges.length;
  const named = state.found.entities.length;
  const read = readSentence(s, state, bullet);
  state.previous = state.found.entities.slice(named);
  state.previousText = s;
  return read || state.found.edges.length > before;
}

function readSentence(s: string, state: State, bullet: boolean): boolean {
  const before = state.found.edges.length;
  if (state.tiers) {
    const groups = tierGroups(s, bullet);
    if (groups.length) {
      state.tiers.push(...groups);
      return true;
    }
    if (TIER_CUE.test(s)) return true;
  }
  if (state.decision !== undefined) {
    for (const part of s.split(BRANCH_SPLIT)) {
      const b = parseBranch(part);
      if (b) branch(b, state);
      else general(part, state);
    }
  } else general(s, state);
  return state.found.edges.length > before;
}

/**
 * Nested bullets: each item hangs off the nearest item above it with less indentation. An item that is what the one
 * above does ("- Teacher\n  - enters scores into Gradebook": a verb's -s form and more) is read as its sentence.
 */
function treeBlock(block: BulletBlock, state: State): void {
  const out = state.found;
  const stack: { depth: number; name: string }[] = [];
  for (const item of block.items) {
    const name = cleanEntity(stripLabelRequest(item.text), true);
    if (!name) continue;
    while (stack.length && stack[stack.length - 1].depth >= item.depth) stack.pop();
    const parent = stack[stack.length - 1];
    const text = item.text.trim();
    if (parent && /^[a-z]+s\s+\S/.test(text) && commandStep(text) !== null) {
      general(`${parent.name} ${text}`, state);
      continue;
    }
    if (parent) out.edges.push([parent.name, name]);
    out.entities.push(name);
    stack.push({ depth: item.depth, name });
  }
}

function bulletBlock(block: BulletBlock, state: State): boolean {
  const out = state.found;
  if (new Set(block.items.map((i) => i.depth)).size > 1) {
    treeBlock(block, state);
    return false;
  }
  // ("1. Teller enters the wire 2. Compliance screening checks it 3. SWIFT gateway sends it out": numbered steps that
  // each say who acts are a narrated chain of who acts.)
  // (Not where they name each other, which is a list of edges: "1. Phytoplankton feeds Zooplankton 2. Zooplankton feeds
  // Sardines".)
  const namesEachOther = () => {
    const subjects = block.items.map((i) => clauseSubject(i.text));
    const targets = block.items.flatMap((i) => clauseRelations(i.text)?.edges.map(([, b]) => b) ?? []);
    return targets.some((t) => subjects.some((x) => x !== null && headOf(x) === headOf(t)));
  };
  // (And only where the steps carry a thing along, named by a pronoun: "checks it", "sends it out".)
  const carried = block.items.slice(1).filter((i) => /\b(?:it|them)\b/i.test(i.text)).length * 2 >= block.items.length - 1;
  if (block.items.length >= 3 && block.items.every((i) => i.numbered) && carried && !namesEachOther()) {
    const told = block.items.map((i, at) => ({ text: at === 0 ? i.text : `then ${i.text}`, at }));
    if (narratedSequences(told, out).size === told.length) return true;
  }
  const edgeContext = EDGE_LIST_LEAD.test(block.lead);
  const plain: string[] = [];
  let produced = false;
  for (const item of block.items) {
    const lists = state.listed.length;
    if (edgeContext && edgeItem(stripLabelRequest(item.text), out)) produced = true;
    else if (sentenceOrClause(item.text, state, true)) produced = true;
    else if (state.listed.length === lists) {
      const name = cleanEntity(stripLabelRequest(item.text), true);
      if (name) plain.push(name);
    }
  }
  if (produced || plain.length === 0) {
    out.entities.push(...plain);
    return produced;
  }
  // ("- push to main - build - run unit tests - deploy to staging": a list of things to do is done in its order.)
  const commands = plain.filter((p) => /\s/.test(p) && commandStep(p) !== null && isClause(p)).length;
  if (plain.length >= 3 && commands * 3 >= plain.length * 2) {
    addChain(out, plain);
    return true;
  }
  if (DANGLING_LEAD.test(block.lead)) {
    const sentences = splitSentences(block.lead);
    const lead = sentences[sentences.length - 1].replace(/\s*:\s*$/, '');
    const before = out.edges.length;
    const listText = plain.length > 1 ? `${plain.slice(0, -1).join(', ')} and ${plain[plain.length - 1]}` : plain[0];
    general(`${lead} ${listText}`, state);
    if (out.edges.length > before) return true;
  }
  if (plain.length >= 2) state.listed.push(plain);
  else out.entities.push(...plain);
  return false;
}

/** With a decision whose question nothing leads into, the steps written before it lead into it. */
function joinDecision(state: State): void {
  const q = state.decision;
  if (!q) return;
  const { entities, edges } = state.found;
  const key = canonical;
  const qk = key(q);
  if (edges.some(([, b]) => key(b) === qk)) return;
  const hasOut = new Set(edges.map(([a]) => key(a)));
  const branchKeys = new Set([...state.branchNodes].map(key));
  const candidates = entities.filter((e) => key(e) !== qk && !branchKeys.has(key(e)) && !hasOut.has(key(e)));
  if (candidates.length === 0) return;
  const qAt = entities.findIndex((e) => key(e) === qk);
  const before = candidates.filter((c) => entities.findIndex((e) => key(e) === key(c)) < qAt);
  edges.push([(before.length ? before : candidates)[(before.length ? before : candidates).length - 1], q]);
}

/**
 * A one-word name that is the last word of exactly one longer name found before it is a second mention of that one:
 * "the triage bot ..., and the bot routes it" (prose names a thing in full once, then by its head noun).
 */
function headNounAliases(byKey: Map<string, string>): Map<string, string> {
  const alias = new Map<string, string>();
  const earlier: { key: string; head: string }[] = [];
  for (const [k, name] of byKey) {
    const words = normalizeLabel(name).words;
    if (words.length === 1) {
      const longer = earlier.filter((e) => e.head === words[0].stem);
      if (longer.length === 1) alias.set(k, longer[0].key);
    } else if (words.length > 1) earlier.push({ key: k, head: words[words.length - 1].stem });
  }
  for (const k of alias.keys()) byKey.delete(k);
  return alias;
}

const COUNT_WORDS = ['two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve'];
/** "three consumers", "2 switches": a count of 2 to 12 before a name whose last word is a plural. */
const COUNTED = new RegExp(`^(${COUNT_WORDS.join('|')}|\\d{1,2}|(?:pair|couple)\\s+of)\\s+(.*\\S)$`, 'i');
/** Words that refer back to a counted group: "both services", "all the workers". */
const GROUP_REFERENCE = /^(?:(?:both|all|each|the|these|those|of)\s+)+/i;

/** "Both databases replicate to ...": a plural named with "both" and no count is two, read as "two databases". */
function bothOf(name: string, text: string): RegExpExecArray | null {
  const plural = name.split(/\s+/).pop() ?? '';
  if (!/^[a-z]+$/i.test(plural) || !pluralize.isPlural(plural) || pluralize.isSingular(plural)) return null;
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`\\bboth\\s+(?:(?:of\\s+)?the\\s+)?${escaped}\\b`, 'i').test(text) ? COUNTED.exec(`two ${name}`) : null;
}

/**
 * A counted plural as that many boxes: "three consumers" is `consumer 1`, `consumer 2`, `consumer 3`, and an arrow to
 * or from the group (or a later "both consumers", "the consumers") is an arrow to or from each. Singulars come from
 * `pluralize` (the English plural rules and their exceptions, which `stem` only approximates for matching).
 */
function expandCounts(entities: string[], edges: [string, string][], text: string): DiagramSpec {
  const groups = new Map<string, string[]>();
  const members = new Map<string, string[]>();
  // ("two read replicas ... both replicas": a group counted before, not a second one.)
  const counts = entities.filter((e) => COUNTED.test(e)).map((e) => e.toLowerCase());
  const heads = new Map<string, string[] | undefined>();
  for (const name of entities) {
    const m = COUNTED.exec(name) ?? (counts.some((c) => c.endsWith(` ${name.toLowerCase()}`)) ? null : bothOf(name, text));
    if (!m) continue;
    // ("a pair of load balancers": two.)
    const n = /^\d/.test(m[1]) ? Number(m[1]) : /\sof$/i.test(m[1]) ? 2 : COUNT_WORDS.indexOf(m[1].toLowerCase()) + 2;
    const words = m[2].split(/\s+/);
    const last = words[words.length - 1];
    if (n < 2 || n > 12 || !/^[a-z]+$/i.test(last) || !pluralize.isPlural(last) || pluralize.isSingular(last)) continue;
    const singular = [...words.slice(0, -1), pluralize.singular(last)].join(' ');
    // ("the north vault and the south vault ... both vaults": the two named.)
    const named = entities.filter((e) => e.toLowerCase().endsWith(` ${singular.toLowerCase()}`));
    const instances = n === 2 && named.length === 2 ? named : Array.from({ length: n }, (_, i) => `${singular} ${i + 1}`);
    members.set(name, instances);
    groups.set(canonical(m[2]), instances);
    const head = canonical(last);
    heads.set(head, heads.has(head) ? undefined : instances);
  }
  if (members.size === 0) return { entities, edges };
  // ("... to 3 web servers, and each of the 3 talks to ...": a bare count is the one group of that many.)
  const bySize = new Map<number, string[][]>();
  for (const instances of members.values()) bySize.set(instances.length, [...(bySize.get(instances.length) ?? []), instances]);
  const counted = (name: string): string[] | undefined => {
    const m = /^(?:the\s+)?(\w+)$/i.exec(name.trim());
    const n = m ? (/^\d+$/.test(m[1]) ? Number(m[1]) : COUNT_WORDS.indexOf(m[1].toLowerCase()) + 2) : 0;
    const sized = bySize.get(n);
    return sized?.length === 1 ? sized[0] : undefined;
  };
  // (A group is referred to by its last word too, where one group ends in it: "the replicas" for "two read replicas".)
  const byHead = (name: string) => (/\s/.test(name.trim()) ? undefined : heads.get(canonical(name.replace(GROUP_REFERENCE, ''))));
  const expand = (name: string): string[] => members.get(name) ?? groups.get(canonical(name.replace(GROUP_REFERENCE, ''))) ?? counted(name) ?? byHead(name) ?? [name];
  const out: string[] = [];
  for (const name of entities) for (const e of expand(name)) if (!out.includes(e)) out.push(e);
  const seen = new Set<string>();
  const outEdges: [string, string][] = [];
  for (const [a, b] of edges) {
    for (const x of expand(a)) {
      for (const y of expand(b)) {
        const key = `${x}\u0000${y}`;
        if (x === y || seen.has(key)) continue;
        seen.add(key);
        outEdges.push([x, y]);
      }
    }
  }
  return { entities: out, edges: outEdges };
}

/** Entities deduplicated by canonical form, keeping the first spelling; edges renamed to it and deduplicated; counted
 *  plurals as that many boxes (expandCounts). */
function finish(found: Found, names: readonly string[], text: string): DiagramSpec {
  const byKey = new Map<string, string>();
  const real = (n: string) => restoreQuotes(n, names);
  for (const e of found.entities) {
    const name = real(e);
    const k = canonical(name);
    if (name && !byKey.has(k)) byKey.set(k, name);
  }
  const alias = headNounAliases(byKey);
  const keyOf = (n: string) => {
    const k = canonical(n);
    return alias.get(k) ?? k;
  };
  const seen = new Set<string>();
  const edges: [string, string][] = [];
  for (const [a, b] of found.edges) {
    const ka = keyOf(real(a));
    const kb = keyOf(real(b));
    const key = `${ka}\u0000${kb}`;
    if (ka === kb || seen.has(key) || !byKey.has(ka) || !byKey.has(kb)) continue;
    seen.add(key);
    edges.push([byKey.get(ka)!, byKey.get(kb)!]);
  }
  return expandCounts([...byKey.values()], edges, text);
}

/** A group named with its members in brackets or between dashes: "the services (users, billing, search)", "all three
 *  teams — design, backend, QA —". */
const GROUP_MEMBERS = /\b(?:(?:all|both|each of)\s+)?(?:(?:the|our|my|its|their)\s+)?(?:(?:two|three|four|five|six|seven|eight|nine|ten|\d{1,2})\s+)?(?:[a-z][\w-]*\s+)?([a-z][\w-]*s)\s*(?:\(([^()]+)\)|[—–]\s*([^—–]+?)\s*[—–])/gi;

/** The group's members in its place, the ones the boxes are: "users, billing and search all ship their logs ...". */
function groupMembers(text: string): string {
  const named: { plural: string; list: string }[] = [];
  const out = text.replace(GROUP_MEMBERS, (whole: string, plural: string, bracketed: string | undefined, dashed: string | undefined) => {
    const members = splitList(bracketed ?? dashed ?? '');
    // (A capitalised name before brackets is a tier's or a box's own: "Services (Auth, Orders)".)
    if (members.length < 2 || plural !== plural.toLowerCase()) return whole;
    const list = `${members.slice(0, -1).join(', ')} and ${members[members.length - 1]}`;
    named.push({ plural, list });
    return list;
  });
  // (And later mentions of the group are the members too: "... returns results to every one of the clinics".)
  return named.reduce((t, { plural, list }) => t.replace(new RegExp(`\\b(?:(?:every one|each|all|both) of )?the ${plural}\\b`, 'gi'), list), out);
}

/** A sentence that carries on a sequence: "Then grease the pan.", "After that, store ...", "Finally bake ...". */
const SEQUENCE_START = /^(?:and\s+)?(?:then|next|after\s+that|afterwards|finally|lastly|last|later)\b[\s,]*/i;
const FIRST_START = /^(?:first(?:ly)?|to\s+start|start\s+by)\b[\s,]*/i;

/** A sentence of commands ("Afterwards send it to legal, and then file it in the archive") as its steps, or null. */
function commandSteps(sentence: string): string[] | null {
  const text = dropTimeClauses(sentence).replace(SEQUENCE_START, '').replace(FIRST_START, '').replace(/[.!?]+$/, '');
  const steps: string[] = [];
  for (const part of text.split(THEN_SPLIT)) {
    if (!part.trim()) continue;
    const step = commandStep(part.trim());
    const name = step ? cleanEntity(step, true) : '';
    if (!name) return null;
    steps.push(name);
  }
  return steps.length ? steps : null;
}

/**
 * Sentences of commands in a row where a later one carries on from the one before ("Preheat the oven. Then grease the
 * pan. Finally bake for 30 minutes."): a chain of their steps. Returns the indexes of the sentences it read.
 */
function commandSequences(sentences: { text: string; at: number }[], out: Found): Set<number> {
  const read = new Set<number>();
  const steps = sentences.map((s) => commandSteps(s.text));
  for (let i = 0; i < sentences.length; ) {
    let j = i;
    while (j < sentences.length && steps[j] !== null && sentences[j].at === sentences[i].at + (j - i)) j++;
    const carried = sentences.slice(i + 1, j).some((s) => SEQUENCE_START.test(s.text));
    if (j - i >= 2 && carried) {
      addChain(out, sentences.slice(i, j).flatMap((_, k) => steps[i + k]!));
      for (let k = i; k < j; k++) read.add(sentences[k].at);
    }
    i = Math.max(j, i + 1);
  }
  return read;
}

/** A verb whose object is a box it calls on, not a thing it hands on: "calls", "queries", "notifies". */
const CALLING = new RegExp(`^${CALL_VERB}$`, 'i');

/** The head noun a name is mentioned by again ("the api gateway" ... "the gateway"). */
const headOf = (name: string) => canonical(name.split(' ').pop() ?? name);

/**
 * Sentences that narrate one after another ("the user uploads a photo; then the resizer makes a thumbnail; after that
 * the cdn serves it"): a chain of who acts, each handing on to the next. What a step acts on is a box of the chain
 * only where it acts later itself ("webhook hits the api gateway. next the gateway queues the event") or a preposition
 * names it as a place ("checks in at reception"); otherwise it is what travels (a photo, a thumbnail). Returns the
 * indexes of the sentences it read, or none where a step has no subject (commands are commandSequences').
 */
function narratedSequences(sentences: { text: string; at: number }[], out: Found): Set<number> {
  const read = new Set<number>();
  for (let i = 0; i < sentences.length; ) {
    let j = i + 1;
    while (j < sentences.length && sentences[j].at === sentences[j - 1].at + 1 && SEQUENCE_START.test(sentences[j].text)) j++;
    const run = sentences.slice(i, j);
    i = j;
    if (run.length < 2) continue;
    const clauses = run.flatMap((s) => s.text.replace(SEQUENCE_START, '').replace(FIRST_START, '').replace(/[.!?]+$/, '').split(THEN_SPLIT).filter((p) => p.trim()));
    // A step without a relation of its own still has a subject: "after that the cdn serves it".
    const steps = clauses.map((c) => {
      const r = clauseRelations(c);
      if (r) return r;
      const subject = clauseSubject(c.trim());
      return subject && !PRONOUN_SUBJECT.test(`${subject} `) ? { edges: [] as [string, string][], subject: [subject], places: [] as string[], objects: [] } : null;
    });
    if (steps.some((r) => r === null || r.subject.length !== 1)) continue;
    const subjects = steps.map((r) => r!.subject[0]);
    const laterSubject = (name: string, k: number) => subjects.slice(k + 1).some((x) => headOf(x) === headOf(name));
    const edges: [string, string][] = [];
    let before: string | undefined;
    steps.forEach((r, k) => {
      const subject = subjects[k];
      if (before) edges.push([before, subject]);
      // (The object of a calling verb is a box too: "the gateway calls the auth service".)
      const called = (b: string) => r!.objects.some((o) => o.name === b && CALLING.test(o.verb));
      const onward = r!.edges.filter(([a, b]) => a === subject && (laterSubject(b, k) || r!.places.includes(b) || called(b))).map(([, b]) => b);
      for (const [a, b] of r!.edges) if (b === subject && r!.places.includes(a)) edges.push([a, b]);
      for (const b of onward) edges.push([subject, b]);
      before = onward.length ? onward[onward.length - 1] : subject;
    });
    const name = (n: string) => cleanEntity(n, true);
    for (const [a, b] of edges) if (name(a) && name(b)) out.edges.push([name(a), name(b)]);
    out.entities.push(...edges.flat().map(name).filter(Boolean));
    for (const s of run) read.add(s.at);
  }
  return read;
}

/** A branch written as a sentence of its own about what the sentence before named: "If it's correct, redirect to the
 *  dashboard", "If they fail, fix the code". */
const OPENS_BRANCH = /^(if|unless|when)\s+(?:it|they|this|that)\b(?:'s|'re|\s)[^,]*,/i;
/** What goes on from a branch: another "if", or "otherwise"; after "when", only another "when" ("when it passes, ..."). */
const GOES_ON_BRANCH = { if: /^(?:otherwise|else|or else|if|unless)\b(?!\s+(?:yes|no)\b)/i, when: /^when\b/i };

/** Branches about one thing in sentences in a row, joined into the one sentence the condition rules read ("If they
 *  fail, fix the code. If they pass, merge the PR.": two branches off what the sentence before named). */
function joinBranches(parts: ReturnType<typeof segment>): ReturnType<typeof segment> {
  const out: ReturnType<typeof segment> = [];
  for (const p of parts) {
    const last = out[out.length - 1];
    const opens = last?.kind === 'sentence' ? OPENS_BRANCH.exec(last.text.split('; ')[0]) : null;
    const goesOn = opens && (opens[1].toLowerCase() === 'when' ? GOES_ON_BRANCH.when : GOES_ON_BRANCH.if);
    if (p.kind === 'sentence' && last?.kind === 'sentence' && goesOn && goesOn.test(p.text)) {
      out[out.length - 1] = { ...last, text: `${last.text.replace(/[.!?]+$/, '')}; ${p.text}` };
    } else out.push(p);
  }
  return out;
}

function extract(prompt: string): DiagramSpec {
  const { text: quoted, names } = protectQuotes(prompt);
  const text = groupMembers(fixStructureTypos(quoted));
  const parts = joinBranches(segment(text));
  const clauses = parts.flatMap((p) => (p.kind === 'sentence' ? [p.text] : p.block.items.map((i) => i.text)));
  const decisive = hasBothBranches(clauses);
  const declared = decisive ? findDecision(clauses) : undefined;
  const state: State = {
    found: { entities: [], edges: [] },
    listed: [],
    tiers: TIER_CUE.test(text) && TIER_WORD.test(text) ? [] : undefined,
    decision: decisive ? (declared ? cleanEntity(declared) : '') : undefined,
    branchNodes: new Set(),
    previous: [],
    previousText: '',
  };
  if (state.decision) state.found.entities.push(state.decision);
  let numbered = false;
  const sentences = parts.flatMap((p, at) => (p.kind === 'sentence' ? [{ text: p.text, at }] : []));
  const commands = commandSequences(sentences, state.found);
  const narrated = narratedSequences(sentences.filter((s) => !commands.has(s.at)), state.found);
  for (const [at, p] of parts.entries()) {
    if (commands.has(at) || narrated.has(at)) continue;
    if (p.kind === 'sentence') sentenceOrClause(p.text, state, false);
    else {
      bulletBlock(p.block, state);
      numbered ||= p.block.items.some((i) => i.numbered);
    }
  }
  const found = state.found;
  if (state.tiers && state.tiers.length >= 2) {
    for (let i = 0; i + 1 < state.tiers.length; i++) {
      for (const a of state.tiers[i]) for (const b of state.tiers[i + 1]) found.edges.push([a, b]);
    }
    for (const t of state.tiers) found.entities.push(...t);
  }
  joinDecision(state);
  const sequential = SEQUENCE_CUE.test(text) || numbered;
  const key = (n: string) => canonical(restoreQuotes(n, names));
  const explicit = [...found.edges];
  for (const items of state.listed) {
    found.entities.push(...items);
    if (!sequential) continue;
    // The list is a chain unless edges written out among its items say otherwise.
    const at = (n: string) => items.flatMap((it, i) => (key(it) === key(n) ? [i] : []));
    const contradicted = explicit.some(([a, b]) => {
      const is = at(a);
      const js = at(b);
      return is.length > 0 && js.length > 0 && !is.some((i) => js.includes(i + 1));
    });
    if (!contradicted) for (let i = 0; i + 1 < items.length; i++) found.edges.push([items[i], items[i + 1]]);
  }
  return finish(found, names, text);
}

/**
 * The spec of a prompt no rule reads: the things it names (its noun phrases), with no edges. A reward that knows what
 * should be drawn tells a diagram of those things from one of other words, where "nothing known" scores both alike.
 */
function named(prompt: string): DiagramSpec {
  const { text, names } = protectQuotes(prompt);
  const entities = [...new Set([...names, ...nounPhrases(text.replace(/\uE000\d+\uE001/g, ','))].map((n) => cleanEntity(n, true)).filter(Boolean))];
  return { entities, edges: [] };
}

const CACHE_LIMIT = 10_000;
const cache = new Map<string, DiagramSpec>();

/**
 * Entities and directed edges a prompt asks for; where no rule reads the prompt, the things it names and no edges. May
 * return no entities when the prompt names nothing ("Make it pretty."); callers treat that as "unknown", not as
 * "nothing requested". Cached per prompt (GRPO repeats them).
 */
/** A question that asks for the drawing, before the sentences that say what is in it: "Could you show me how a bill
 *  becomes law in the US? It starts in the House, ...", "is there a way to show who reports to whom? the ward manager
 *  oversees ...". */
const ASKING = /^\s*(?:(?:hey|hi|ok|so)[\s,]+)?(?:can|could|would|will|is there|how|what|any way)\b[^?\n]*\b(?:draw|show|diagram|sketch|map|chart|picture|visuali[sz]e|look like|boxes)\b[^?\n]*\?\s+(?=\S)/i;

/** What the sentences after a question asking for the drawing say, where they say how things connect and the question
 *  names none of their things (a question that names them holds the drawing itself: "Could you sketch A, B and C
 *  converging on D? The arrow from A to D ..."). */
function asked(prompt: string): DiagramSpec | null {
  const lead = ASKING.exec(prompt);
  // (A question with a colon or a quoted name lays out the drawing itself: tiers, a decision.)
  if (!lead || /[:"\uE000]/.test(lead[0])) return null;
  const rest = extract(prompt.slice(lead[0].length));
  const names = new Set(rest.entities.map(canonical));
  return rest.edges.length && !extract(lead[0]).entities.some((e) => names.has(canonical(e))) ? rest : null;
}

export function extractSpec(prompt: string): DiagramSpec {
  const hit = cache.get(prompt);
  if (hit) return hit;
  const read = asked(prompt) ?? extract(prompt);
  const spec = read.entities.length ? read : named(prompt);
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(prompt, spec);
  return spec;
}
