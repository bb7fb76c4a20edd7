// Concrete diagrams cut from scenarios: which steps of a pipeline, which spokes of a hub, which branches of a tree.
// Every instance is named by (scenario, code) so that a stratum can be enumerated, counted exactly and sampled
// without replacement; `decode` turns a code back into entities, edges and the structure templates phrase.
import type { DiagramKind } from './spec.ts';
import { levelOf, MAX_ENTITIES } from './difficulty.ts';
import { scenarios, type Entity, type Scenario, type Vocab } from './scenarios.ts';

export type Structure =
  | { shape: 'sequence'; steps: Entity[] }
  | { shape: 'star'; center: Entity; members: Entity[] }
  | { shape: 'tree'; root: Entity; children: { node: Entity; children: Entity[] }[] }
  | { shape: 'decision'; before: Entity[]; question: Entity; yes: Entity[]; no: Entity[] }
  | { shape: 'tiers'; tiers: { name: string; items: Entity[] }[] }
  | { shape: 'graph' };

export interface Instance {
  kind: DiagramKind;
  scenario: Scenario;
  code: number;
  entities: Entity[];
  /** In reading order: the order a person would list them. */
  edges: [Entity, Entity][];
  structure: Structure;
}

export interface InstanceRef {
  scenario: Scenario;
  code: number;
  size: number;
  level: number;
}

/** Layered instances with more arrows than this are too dense to read. */
const MAX_LAYERED_EDGES = 16;

const popcount = (m: number) => {
  let c = 0;
  for (let x = m; x; x &= x - 1) c++;
  return c;
};
const pickBits = <T>(xs: T[], mask: number) => xs.filter((_, i) => mask & (1 << i));

/** Sizes and codes of every instance a scenario yields. */
function enumerate(s: Scenario): { code: number; size: number }[] {
  const out: { code: number; size: number }[] = [];
  const masks = (n: number, ok: (mask: number) => boolean) => {
    for (let m = 1; m < 1 << n; m++) if (ok(m)) out.push({ code: m, size: popcount(m) });
  };
  switch (s.shape) {
    case 'sequence': {
      const min = s.kind === 'cycle' ? 3 : 2;
      masks(s.steps.length, (m) => popcount(m) >= min);
      return out;
    }
    case 'star':
      for (let m = 1; m < 1 << s.members.length; m++) if (popcount(m) >= 2) out.push({ code: m, size: popcount(m) + 1 });
      return out;
    case 'tree': {
      const flat = treeSlots(s);
      for (let m = 1; m < 1 << flat.length; m++) {
        const roots = flat.filter((f, i) => f.parent === -1 && m & (1 << i)).length;
        const orphan = flat.some((f, i) => f.parent !== -1 && m & (1 << i) && !(m & (1 << f.parent)));
        if (roots >= 2 && !orphan) out.push({ code: m, size: popcount(m) + 1 });
      }
      return out;
    }
    case 'decision':
      for (let b = 0; b <= s.before.length; b++)
        for (let y = 1; y <= s.yes.length; y++)
          for (let n = 1; n <= s.no.length; n++) out.push({ code: (b << 8) | (y << 4) | n, size: b + 1 + y + n });
      return out;
    case 'tiers': {
      const T = s.tiers.length;
      for (let start = 0; start < T; start++)
        for (let len = Math.min(3, T); start + len <= T; len++) {
          const radix = s.tiers.slice(start, start + len).map((t) => t.items.length);
          const total = radix.reduce((a, b) => a * b, 1);
          for (let i = 0; i < total; i++) {
            const counts: number[] = [];
            for (let r = 0, x = i; r < len; r++) {
              counts.push((x % radix[r]) + 1);
              x = Math.floor(x / radix[r]);
            }
            const edges = counts.slice(1).reduce((e, c, j) => e + c * counts[j], 0);
            if (counts.every((c) => c === 1) || edges > MAX_LAYERED_EDGES) continue;
            const code = counts.reduce((acc, c, j) => acc | (c << (6 + 3 * j)), (start << 3) | len);
            out.push({ code, size: counts.reduce((a, b) => a + b, 0) });
          }
        }
      return out;
    }
    case 'graph':
      masks(s.nodes.length, (m) => popcount(m) >= 4 && isMixed(s.edges.filter(([a, b]) => m & (1 << a) && m & (1 << b)), m));
      return out;
  }
}

/** Non-root tree nodes, flattened; `parent` is the slot of a grandchild's parent, -1 for a child of the root. */
function treeSlots(s: Extract<Scenario, { shape: 'tree' }>): { entity: Entity; parent: number }[] {
  const flat: { entity: Entity; parent: number }[] = [];
  for (const c of s.children) {
    const p = flat.length;
    flat.push({ entity: c.node, parent: -1 });
    for (const g of c.children) flat.push({ entity: g, parent: p });
  }
  return flat;
}

/**
 * A mixed graph is weakly connected and more than one simple pattern: it merges (a node with two inputs) or it
 * branches around a loop; a lone star or a lone ring belongs to another kind.
 */
function isMixed(edges: [number, number][], mask: number): boolean {
  const nodes = [...Array(32).keys()].filter((i) => mask & (1 << i));
  const indeg = new Map<number, number>();
  const outdeg = new Map<number, number>();
  for (const [a, b] of edges) {
    outdeg.set(a, (outdeg.get(a) ?? 0) + 1);
    indeg.set(b, (indeg.get(b) ?? 0) + 1);
  }
  // weakly connected
  const seen = new Set([nodes[0]]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [a, b] of edges) {
      if (seen.has(a) !== seen.has(b)) {
        seen.add(a);
        seen.add(b);
        grew = true;
      }
    }
  }
  if (seen.size !== nodes.length) return false;
  const star = edges.length === nodes.length - 1 && nodes.some((n) => (indeg.get(n) ?? 0) === edges.length || (outdeg.get(n) ?? 0) === edges.length);
  if (star) return false;
  const merges = nodes.some((n) => (indeg.get(n) ?? 0) >= 2);
  const branches = nodes.some((n) => (outdeg.get(n) ?? 0) >= 2);
  return merges || (branches && hasCycle(edges));
}

function hasCycle(edges: [number, number][]): boolean {
  const next = new Map<number, number[]>();
  for (const [a, b] of edges) next.set(a, [...(next.get(a) ?? []), b]);
  const state = new Map<number, 1 | 2>();
  const visit = (n: number): boolean => {
    if (state.get(n) === 1) return true;
    if (state.get(n) === 2) return false;
    state.set(n, 1);
    if ((next.get(n) ?? []).some(visit)) return true;
    state.set(n, 2);
    return false;
  };
  return [...next.keys()].some(visit);
}

export function decode(s: Scenario, code: number): Instance {
  const base = { kind: s.kind, scenario: s, code };
  const chainEdges = (xs: Entity[]) => xs.slice(1).map((x, i): [Entity, Entity] => [xs[i], x]);
  switch (s.shape) {
    case 'sequence': {
      const steps = pickBits(s.steps, code);
      const edges = chainEdges(steps);
      if (s.kind === 'cycle') edges.push([steps[steps.length - 1], steps[0]]);
      return { ...base, entities: steps, edges, structure: { shape: 'sequence', steps } };
    }
    case 'star': {
      const members = pickBits(s.members, code);
      const edges = members.map((m): [Entity, Entity] => (s.kind === 'fan_out' ? [s.center, m] : [m, s.center]));
      const entities = s.kind === 'fan_out' ? [s.center, ...members] : [...members, s.center];
      return { ...base, entities, edges, structure: { shape: 'star', center: s.center, members } };
    }
    case 'tree': {
      const flat = treeSlots(s);
      const children = flat
        .map((f, i) => ({ f, i }))
        .filter(({ f, i }) => f.parent === -1 && code & (1 << i))
        .map(({ f, i }) => ({ node: f.entity, children: flat.filter((g, j) => g.parent === i && code & (1 << j)).map((g) => g.entity) }));
      const edges: [Entity, Entity][] = [
        ...children.map((c): [Entity, Entity] => [s.root, c.node]),
        ...children.flatMap((c) => c.children.map((g): [Entity, Entity] => [c.node, g])),
      ];
      const entities = [s.root, ...children.map((c) => c.node), ...children.flatMap((c) => c.children)];
      return { ...base, entities, edges, structure: { shape: 'tree', root: s.root, children } };
    }
    case 'decision': {
      const before = s.before.slice(s.before.length - (code >> 8));
      const yes = s.yes.slice(0, (code >> 4) & 15);
      const no = s.no.slice(0, code & 15);
      const edges: [Entity, Entity][] = [
        ...chainEdges([...before, s.question]),
        [s.question, yes[0]],
        ...chainEdges(yes),
        [s.question, no[0]],
        ...chainEdges(no),
      ];
      return { ...base, entities: [...before, s.question, ...yes, ...no], edges, structure: { shape: 'decision', before, question: s.question, yes, no } };
    }
    case 'tiers': {
      const start = (code >> 3) & 7;
      const len = code & 7;
      const tiers = s.tiers.slice(start, start + len).map((t, j) => ({ name: t.name, items: t.items.slice(0, (code >> (6 + 3 * j)) & 7) }));
      const edges = tiers.slice(1).flatMap((t, j) => tiers[j].items.flatMap((a) => t.items.map((b): [Entity, Entity] => [a, b])));
      return { ...base, entities: tiers.flatMap((t) => t.items), edges, structure: { shape: 'tiers', tiers } };
    }
    case 'graph': {
      const entities = pickBits(s.nodes, code);
      const edges = s.edges.filter(([a, b]) => code & (1 << a) && code & (1 << b)).map(([a, b]): [Entity, Entity] => [s.nodes[a], s.nodes[b]]);
      return { ...base, entities, edges, structure: { shape: 'graph' } };
    }
  }
}

const refCache = new Map<Vocab, InstanceRef[]>();

/** Every instance of a split with its size and level, in a fixed order. */
export function instanceRefs(split: Vocab): InstanceRef[] {
  let refs = refCache.get(split);
  if (!refs) {
    refs = scenarios(split).flatMap((s) =>
      enumerate(s)
        .filter((e) => e.size <= MAX_ENTITIES)
        .map((e) => ({ scenario: s, code: e.code, size: e.size, level: levelOf(s.kind, e.size) })),
    );
    refCache.set(split, refs);
  }
  return refs;
}
