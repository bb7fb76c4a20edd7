// A task spec recovered from the prompt alone, for rows that carry none: which entities it names and which directed
// edges it asks for. Rule-based, for the phrasings diagram requests use: "A -> B -> C", "from A to B (to C)",
// "first A, then B", "A connects to B", "with A, B and C", "pipeline: A, B, C" and bullet lists.
// A list becomes a chain only when the prompt says it is a sequence (pipeline, flow, steps, ...).
import type { DiagramSpec } from '../tasks/spec.ts';
import { normalizeLabel } from './labels.ts';

const ARROW = /\s*(?:-+>|→|=+>|⟶|➔)\s*/;
const HAS_ARROW = /-+>|→|=+>|⟶|➔/;
const SENTENCE_SPLIT = /(?<=[.!?])\s+(?=[A-Z0-9"'(])|\n+|;\s*/;
const BULLET = /^\s*(?:[-*•]|\d+[.)])\s+(.+?)\s*$/;
const LIST_SPLIT = /\s*,\s*(?:and\s+|or\s+|then\s+)?|\s+(?:and|or|&)\s+/i;
const THEN_SPLIT = /\s*,?\s*(?:and\s+)?(?:then|finally|next|afterwards|after that)\s+|\s*,\s*/i;
const HAS_THEN = /\bthen\b/i;
const FIRST_LEAD = /^.*?\b(?:first|start(?:ing)? with|begin(?:ning)? with)\s+/i;
const LIST_LEAD = /^.*\b(?:with|including|includes|containing|contains|showing|featuring|of|between|among)\s+/i;
const LIST_TAIL = /\s+(?:where|which|that|so that|connected|linked|wired|arranged|laid out)\b.*$/i;
const FROM_TO = /\bfrom\s+(.+?)\s+(?:to|into|through|via)\s+(.+?)(?=\s*(?:[,.;:!?]|\bthen\b|\bto\b|\band\b|\bwith\b|\bwhere\b|$))/gi;
const THROUGH_TO = /^(.+?)\s+(?:to|into)\s+(.+)$/i;
const CHAIN_MORE = /^\s*,?\s*(?:and\s+)?(?:then\s+)?(?:on\s+)?(?:to|into|through|via)\s+(.+?)(?=\s*(?:[,.;:!?]|\bthen\b|\bto\b|\band\b|\bwith\b|\bwhere\b|$))/i;
const LINK_VERBS =
  'connects?|leads?|points?|goes|go|talks?|sends?|flows?|feeds?|writes?|routes?|forwards?|passes|pass|links?|hands? off|publishes|publish|pushes|push|returns?';
const CALL_VERBS = 'calls|queries|triggers|invokes|notifies|updates';
const RELATION = new RegExp(`^(.+?)\\s+(?:${LINK_VERBS})\\s+(?:\\w+\\s+)?(?:to|into)\\s+(.+?)\\s*$`, 'i');
const CALLS = new RegExp(`^(.+?)\\s+(?:${CALL_VERBS})\\s+(.+?)\\s*$`, 'i');
/** Splits "A writes to B and C publishes to D" before the second subject, but not "A connects to B and C". */
const CLAUSE_SPLIT = new RegExp(
  `;\\s*|(?:,\\s*|\\s+(?:and|while|but)\\s+)(?=(?:the\\s+)?[\\w-]+(?:\\s+[\\w-]+){0,3}\\s+(?:also\\s+)?(?:${LINK_VERBS}|${CALL_VERBS})\\b)`,
  'i',
);
/** Words before a relation's subject: "Draw a system where the scheduler triggers ..." */
const SUBJECT_LEAD = /^.*\b(?:where|which|that|while|so|in which|with)\s+/i;
const ALSO = /\s+also$/i;
const SEQUENCE_CUE = /\b(?:pipelines?|flows?|process(?:es)?|sequences?|steps?|stages?|chains?|workflows?|funnels?|lifecycles?|journeys?|then|in order|paths?|procedures?)\b/i;
const LEAD_WORDS = /^(?:(?:and|or|then|finally|next|also|to|into|with|draw|show|make|create|sketch|render|illustrate|depict|visualize|a|an|the|some|one|each|every|our|my|their|its|your)\s+)+/i;
const TRAIL_WORDS = /(?:\s+(?:too|also|as well|as needed|each|both|respectively|step|stage|phase|box|node))+$/i;
const TRAIL_PUNCT = /[\s.,;:!?"'`*_)\]]+$/;
const LEAD_PUNCT = /^[\s"'`*_([]+/;
const PARENS = /\s*\([^)]*\)/g;
const CLAUSE_BEFORE_ARROW = /\s*,\s*(?=[^,]*(?:-+>|→|=+>))/;
const VIA_NEXT = /^(?:through|via)\b/i;
const FROM_THEN_TO = /\bfrom\b.+\bto\b/i;
const NUMBERED = /^\s*\d/;
const MAX_ENTITY_WORDS = 6;

interface Found {
  entities: string[];
  edges: [string, string][];
}

/** Trims a phrase to the entity it names, or '' when it is not a plausible name. */
export function cleanEntity(phrase: string): string {
  let s = phrase.replace(PARENS, '');
  const colon = s.lastIndexOf(':');
  if (colon !== -1) s = s.slice(colon + 1);
  s = s.replace(LEAD_PUNCT, '').replace(TRAIL_PUNCT, '');
  s = s.replace(LEAD_WORDS, '').replace(TRAIL_PUNCT, '').replace(TRAIL_WORDS, '');
  const words = s.split(' ').filter(Boolean);
  if (words.length === 0 || words.length > MAX_ENTITY_WORDS) return '';
  return words.join(' ');
}

function splitList(text: string): string[] {
  return text.split(LIST_SPLIT).map(cleanEntity).filter(Boolean);
}

/** "A -> B -> C" chains; a chain breaks at a sentence or clause boundary between two arrows. */
function arrowChains(sentence: string, out: Found): void {
  if (!HAS_ARROW.test(sentence)) return;
  for (const clause of sentence.split(CLAUSE_BEFORE_ARROW)) {
    const parts = clause.split(ARROW);
    if (parts.length < 2) continue;
    // Each part may list several nodes ("A -> B, C" fans out); the first part starts after any lead-in.
    const groups = parts.map((p, i) => {
      let text = p;
      if (i === 0) text = text.slice(text.lastIndexOf(':') + 1).replace(LIST_LEAD, '');
      if (i === parts.length - 1) text = text.replace(LIST_TAIL, '');
      return splitList(text);
    });
    for (let i = 0; i + 1 < groups.length; i++) {
      for (const a of groups[i]) for (const b of groups[i + 1]) out.edges.push([a, b]);
    }
    for (const g of groups) out.entities.push(...g);
  }
}

/** "from A to B", "from A through B to C", "from A to B, then to C". */
function fromTo(sentence: string, out: Found): void {
  for (const m of sentence.matchAll(FROM_TO)) {
    const chain: string[] = [m[1]];
    let second = m[2];
    // "from A through B to C": the lazy match stopped at "through"; the rest names the next hops.
    const via = m[0].slice(m[0].indexOf(m[1]) + m[1].length).trimStart();
    if (VIA_NEXT.test(via)) {
      const t = THROUGH_TO.exec(second);
      if (t) {
        chain.push(t[1]);
        second = t[2];
      }
    }
    chain.push(second);
    let rest = sentence.slice((m.index ?? 0) + m[0].length);
    for (let more = CHAIN_MORE.exec(rest); more; more = CHAIN_MORE.exec(rest)) {
      chain.push(more[1]);
      rest = rest.slice(more.index + more[0].length);
    }
    const names = chain.map(cleanEntity);
    if (names.some((n) => !n)) continue;
    for (let i = 0; i + 1 < names.length; i++) out.edges.push([names[i], names[i + 1]]);
    out.entities.push(...names);
  }
}

/** "A connects to B, C and D" (fan-out), "A and B send data to C" (fan-in), "A calls B". */
function relations(sentence: string, out: Found): void {
  // Commas may separate a list of subjects ("Web, mobile and desktop clients connect to ..."), so a clause that
  // does not hold a relation is carried into the next one instead of being dropped.
  let carry = '';
  for (const part of sentence.split(CLAUSE_SPLIT)) {
    const clause = carry ? `${carry}, ${part}` : part;
    const m = RELATION.exec(clause) ?? CALLS.exec(clause);
    if (!m) {
      carry = clause;
      continue;
    }
    carry = '';
    const sources = splitList(m[1].replace(SUBJECT_LEAD, '').replace(ALSO, ''));
    const targets = splitList(m[2].replace(LIST_TAIL, ''));
    if (sources.length === 0 || targets.length === 0) continue;
    for (const a of sources) for (const b of targets) out.edges.push([a, b]);
    out.entities.push(...sources, ...targets);
  }
}

/** "first A, then B, then C" or "A then B then C": a chain. */
function thenSequence(sentence: string, out: Found): void {
  if (!HAS_THEN.test(sentence) || FROM_THEN_TO.test(sentence)) return;
  let text = sentence.replace(LIST_TAIL, '');
  if (FIRST_LEAD.test(text)) text = text.replace(FIRST_LEAD, '');
  else if (text.includes(':')) text = text.slice(text.lastIndexOf(':') + 1);
  else text = text.replace(LIST_LEAD, '');
  const names = text.split(THEN_SPLIT).map(cleanEntity).filter(Boolean);
  if (names.length < 2) return;
  for (let i = 0; i + 1 < names.length; i++) out.edges.push([names[i], names[i + 1]]);
  out.entities.push(...names);
}

/** "pipeline: A, B, C" or "with A, B and C": entities, in order. */
function listItems(full: string): string[] {
  const sentence = full.replace(PARENS, '');
  let text: string;
  if (sentence.includes(':')) text = sentence.slice(sentence.lastIndexOf(':') + 1);
  else if (LIST_LEAD.test(sentence)) text = sentence.replace(LIST_LEAD, '');
  else return [];
  text = text.replace(LIST_TAIL, '');
  const items = splitList(text);
  return items.length >= 2 ? items : [];
}

/** Entities deduplicated by canonical form, keeping the first spelling; edges renamed to it and deduplicated. */
function finish(found: Found): DiagramSpec {
  const byKey = new Map<string, string>();
  const keyOf = (name: string) => normalizeLabel(name).compact || name.toLowerCase();
  for (const e of found.entities) {
    const k = keyOf(e);
    if (!byKey.has(k)) byKey.set(k, e);
  }
  const seen = new Set<string>();
  const edges: [string, string][] = [];
  for (const [a, b] of found.edges) {
    const ka = keyOf(a);
    const kb = keyOf(b);
    const key = `${ka}\u0000${kb}`;
    if (ka === kb || seen.has(key)) continue;
    seen.add(key);
    edges.push([byKey.get(ka)!, byKey.get(kb)!]);
  }
  return { entities: [...byKey.values()], edges };
}

function extract(prompt: string): DiagramSpec {
  const explicit: Found = { entities: [], edges: [] };
  const listed: string[][] = [];
  const bullets: string[] = [];
  const prose: string[] = [];
  let numbered = false;
  for (const line of prompt.split('\n')) {
    const b = BULLET.exec(line);
    if (b) {
      bullets.push(b[1]);
      numbered ||= NUMBERED.test(line);
    } else prose.push(line);
  }
  for (const sentence of prose.join('\n').split(SENTENCE_SPLIT)) {
    const s = sentence.trim();
    if (!s) continue;
    const before = explicit.edges.length;
    arrowChains(s, explicit);
    if (explicit.edges.length === before) fromTo(s, explicit);
    if (explicit.edges.length === before) relations(s, explicit);
    if (explicit.edges.length === before) thenSequence(s, explicit);
    if (explicit.edges.length === before) {
      const items = listItems(s);
      if (items.length) listed.push(items);
    }
  }
  for (const b of bullets) {
    const before = explicit.edges.length;
    arrowChains(b, explicit);
    if (explicit.edges.length === before) relations(b, explicit);
    if (explicit.edges.length === before) {
      const name = cleanEntity(b);
      if (name) explicit.entities.push(name);
    }
  }
  if (bullets.length >= 2 && explicit.edges.length === 0) {
    const names = bullets.map(cleanEntity).filter(Boolean);
    listed.push(names);
  }
  const sequential = SEQUENCE_CUE.test(prompt) || numbered;
  const found: Found = { entities: [...explicit.entities], edges: [...explicit.edges] };
  for (const items of listed) {
    found.entities.push(...items);
    const keys = new Set(items.map((i) => normalizeLabel(i).compact));
    const joined = explicit.edges.some(([a, b]) => keys.has(normalizeLabel(a).compact) && keys.has(normalizeLabel(b).compact));
    if (sequential && !joined) {
      for (let i = 0; i + 1 < items.length; i++) found.edges.push([items[i], items[i + 1]]);
    }
  }
  return finish(found);
}

const CACHE_LIMIT = 10_000;
const cache = new Map<string, DiagramSpec>();

/**
 * Entities and directed edges a prompt asks for. May return no entities when the prompt names none in a form the
 * rules know; callers treat that as "unknown", not as "nothing requested". Cached per prompt (GRPO repeats them).
 */
export function extractSpec(prompt: string): DiagramSpec {
  const hit = cache.get(prompt);
  if (hit) return hit;
  const spec = extract(prompt);
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(prompt, spec);
  return spec;
}
