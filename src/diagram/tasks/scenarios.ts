// Parses the vocabulary's line syntax (see vocab/types.ts) into typed scenarios, one list per split.
// A malformed line is a bug in the data: it throws, naming the line.
import { DOMAINS } from './vocab/index.ts';
import type { DomainVocab, ScenarioLines } from './vocab/types.ts';

/** The suite's two vocabularies (scenarios, entity names, phrasing templates, connector words), kept apart: `ood`
 *  shares no entity name, template or connector word with `train`. */
export const VOCABS = ['train', 'ood'] as const;
export type Vocab = (typeof VOCABS)[number];

/** The task splits. `train`; `heldout`, the IID held-out set: train's phrasings and structures with made-up names that
 *  no training task uses (synthetic-names.ts), so new names in new combinations; `ood`, the out-of-distribution probe:
 *  phrasings, connector words and names never seen in train, which a student trained from scratch cannot read. */
export const SPLITS = ['train', 'heldout', 'ood'] as const;
export type Split = (typeof SPLITS)[number];

/** The vocabulary a split's tasks are written in. */
export const vocabOf = (split: Split): Vocab => (split === 'ood' ? 'ood' : 'train');

/** An entity as the spec names it, and optionally the shorter form a prompt types instead ("vector DB"). */
export interface Entity {
  name: string;
  short?: string;
}

interface Base {
  /** `domain/topic`, unique within a split. */
  id: string;
  domain: string;
  topic: string;
  verbs: string[];
}

export type Scenario = Base &
  (
    | { shape: 'sequence'; kind: 'chain' | 'cycle'; steps: Entity[] }
    | { shape: 'star'; kind: 'fan_out' | 'fan_in'; center: Entity; members: Entity[] }
    | { shape: 'tree'; kind: 'tree'; root: Entity; children: { node: Entity; children: Entity[] }[] }
    | { shape: 'decision'; kind: 'decision'; before: Entity[]; question: Entity; yes: Entity[]; no: Entity[] }
    | { shape: 'tiers'; kind: 'layered'; tiers: { name: string; items: Entity[] }[] }
    | { shape: 'graph'; kind: 'mixed'; nodes: Entity[]; edges: [number, number][] }
  );

class VocabError extends Error {
  constructor(line: string, why: string) {
    super(`vocabulary line ${JSON.stringify(line)}: ${why}`);
  }
}

function entity(text: string, line: string): Entity {
  const m = /^([^{}]+?)\s*(?:\{([^{}]+)\})?$/.exec(text.trim());
  if (!m || !m[1]) throw new VocabError(line, `bad entity ${JSON.stringify(text)}`);
  return m[2] ? { name: m[1], short: m[2].trim() } : { name: m[1] };
}

const items = (text: string, sep: string | RegExp, line: string) =>
  text.split(sep).map((t) => t.trim()).filter((t) => t.length > 0).map((t) => entity(t, line));

/** Splits `topic :: body @ verbs` into its parts. */
function head(line: string, verbs: string[]): { topic: string; body: string; verbs: string[] } {
  const [topic, rest] = line.split(' :: ');
  if (!topic || rest === undefined) throw new VocabError(line, 'expected "topic :: ..."');
  const [body, own] = rest.split(' @ ');
  return { topic: topic.trim(), body: body.trim(), verbs: own ? own.split(',').map((v) => v.trim()) : verbs };
}

/** Splits on commas that are not inside parentheses. */
function topLevelCommas(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of text) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      parts.push(cur);
      cur = '';
    } else cur += ch;
  }
  parts.push(cur);
  return parts.map((p) => p.trim()).filter((p) => p.length > 0);
}

function parseLines(vocab: DomainVocab, lines: ScenarioLines): Scenario[] {
  const out: Scenario[] = [];
  const base = (line: string) => {
    const h = head(line, vocab.verbs);
    return { h, b: { id: `${vocab.domain}/${h.topic}`, domain: vocab.domain, topic: h.topic, verbs: h.verbs } };
  };
  for (const [kind, list] of [['chain', lines.chains], ['cycle', lines.cycles]] as const) {
    for (const line of list) {
      const { h, b } = base(line);
      out.push({ ...b, shape: 'sequence', kind, steps: items(h.body, '>', line) });
    }
  }
  for (const line of lines.fans) {
    const { h, b } = base(line);
    const [left, right] = h.body.split('=>');
    if (right === undefined) throw new VocabError(line, 'a fan needs "=>"');
    const l = items(left, ',', line);
    const r = items(right, ',', line);
    if (l.length === 1) out.push({ ...b, shape: 'star', kind: 'fan_out', center: l[0], members: r });
    else if (r.length === 1) out.push({ ...b, shape: 'star', kind: 'fan_in', center: r[0], members: l });
    else throw new VocabError(line, 'one side of "=>" must be a single hub');
  }
  for (const line of lines.trees) {
    const { h, b } = base(line);
    const gt = h.body.indexOf('>');
    if (gt === -1) throw new VocabError(line, 'a tree needs "Root > children"');
    const children = topLevelCommas(h.body.slice(gt + 1)).map((c) => {
      const m = /^([^()]+?)\s*(?:\(([^()]*)\))?$/.exec(c);
      if (!m) throw new VocabError(line, `bad tree child ${JSON.stringify(c)}`);
      return { node: entity(m[1], line), children: m[2] ? items(m[2], ',', line) : [] };
    });
    out.push({ ...b, shape: 'tree', kind: 'tree', root: entity(h.body.slice(0, gt), line), children });
  }
  for (const line of lines.decisions) {
    const { h, b } = base(line);
    const m = /^(.*?)\[([^\]]+)\](.*)$/.exec(h.body);
    if (!m) throw new VocabError(line, 'a decision needs "[Question?]"');
    const [yes, no] = m[3].split('|');
    if (no === undefined) throw new VocabError(line, 'a decision needs "yes steps | no steps"');
    out.push({
      ...b,
      shape: 'decision',
      kind: 'decision',
      before: items(m[1], '>', line),
      question: entity(m[2], line),
      yes: items(yes, '>', line),
      no: items(no, '>', line),
    });
  }
  for (const line of lines.layered) {
    const { h, b } = base(line);
    const tiers = h.body.split('|').map((t) => {
      const [name, list] = t.split(':');
      if (list === undefined) throw new VocabError(line, `tier ${JSON.stringify(t.trim())} needs "Name: items"`);
      return { name: name.trim(), items: items(list, ',', line) };
    });
    out.push({ ...b, shape: 'tiers', kind: 'layered', tiers });
  }
  for (const line of lines.mixed) {
    const { h, b } = base(line);
    const nodes: Entity[] = [];
    const index = (e: Entity) => {
      const i = nodes.findIndex((n) => n.name === e.name);
      if (i !== -1) return i;
      nodes.push(e);
      return nodes.length - 1;
    };
    const edges: [number, number][] = [];
    for (const clause of h.body.split(';')) {
      const [src, dst] = clause.split('>');
      if (dst === undefined) throw new VocabError(line, `clause ${JSON.stringify(clause.trim())} needs "source > targets"`);
      const s = index(entity(src, line));
      for (const t of items(dst, ',', line)) edges.push([s, index(t)]);
    }
    out.push({ ...b, shape: 'graph', kind: 'mixed', nodes, edges });
  }
  for (const s of out) {
    const names = scenarioEntities(s).map((e) => e.name);
    const dup = names.find((n, i) => names.indexOf(n) !== i);
    if (dup) throw new VocabError(s.id, `entity ${JSON.stringify(dup)} appears twice`);
  }
  return out;
}

/** Every entity a scenario can contribute, in its natural order. */
export function scenarioEntities(s: Scenario): Entity[] {
  switch (s.shape) {
    case 'sequence':
      return s.steps;
    case 'star':
      return [s.center, ...s.members];
    case 'tree':
      return [s.root, ...s.children.flatMap((c) => [c.node, ...c.children])];
    case 'decision':
      return [...s.before, s.question, ...s.yes, ...s.no];
    case 'tiers':
      return s.tiers.flatMap((t) => t.items);
    case 'graph':
      return s.nodes;
  }
}

const cache = new Map<Vocab, Scenario[]>();

export function scenarios(split: Vocab): Scenario[] {
  let list = cache.get(split);
  if (!list) {
    list = DOMAINS.flatMap((d) => parseLines(d, d[split]));
    cache.set(split, list);
  }
  return list;
}
