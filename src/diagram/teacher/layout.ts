// Places a diagram's nodes with ELK's layered algorithm (elkjs), the real graph-layout library, or on a circle for
// loops. The caller compares candidates with the reward's own layout measure, since the canvas draws straight arrows
// where ELK would have routed bends.
import type { ELK, ElkNode } from 'elkjs/lib/elk-api.js';
import type { ShapeKind } from '../language/actions.ts';

export interface NodeBox {
  id: string;
  label: string;
  shape: ShapeKind;
  w: number;
  h: number;
}

export interface EdgeRef {
  from: string;
  to: string;
  label?: string;
  /** Size of the label, so that the layout leaves room for it between layers. */
  labelW?: number;
  labelH?: number;
}

export interface PlacedNode extends NodeBox {
  x: number;
  y: number;
}

export type Direction = 'RIGHT' | 'DOWN';

/** ELK's ways of placing nodes within a layer; each straightens different arrows. */
export const NODE_PLACEMENTS = ['BRANDES_KOEPF', 'NETWORK_SIMPLEX', 'LINEAR_SEGMENTS'] as const;
export type NodePlacement = (typeof NODE_PLACEMENTS)[number];

export interface LayoutOptions {
  direction: Direction;
  placement?: NodePlacement;
  /** Gap between nodes in one layer. */
  nodeGap: number;
  /** Gap between layers. */
  layerGap: number;
  /** Top-left corner of the drawing. */
  margin: number;
}

// Loaded with the first layout (a quarter of a second): scoring and evaluation never lay a diagram out. The bundle is
// CommonJS; under NodeNext its class is the `default` property (which the bundle also sets at runtime).
let elk: Promise<ELK> | undefined;

/** One layered layout in the given direction. */
export async function layeredLayout(nodes: NodeBox[], edges: EdgeRef[], opts: LayoutOptions): Promise<PlacedNode[]> {
  // Arrow labels sit at the middle of straight arrows, between layers: widen that gap for them rather than hand the
  // labels to ELK, which would give them a layer of their own and bend the arrows around it.
  const label = Math.max(0, ...edges.map((e) => (opts.direction === 'RIGHT' ? (e.labelW ?? 0) : (e.labelH ?? 0))));
  const layerGap = Math.max(opts.layerGap, label > 0 ? label + 40 : 0);
  const graph: ElkNode = {
    id: 'root',
    layoutOptions: {
      'elk.algorithm': 'layered',
      'elk.direction': opts.direction,
      'elk.spacing.nodeNode': String(opts.nodeGap),
      'elk.layered.spacing.nodeNodeBetweenLayers': String(layerGap),
      'elk.layered.nodePlacement.strategy': opts.placement ?? 'BRANDES_KOEPF',
      'elk.layered.cycleBreaking.strategy': 'DEPTH_FIRST',
      'elk.padding': '[top=0,left=0,bottom=0,right=0]',
    },
    children: nodes.map((n) => ({ id: n.id, width: n.w, height: n.h })),
    edges: edges.map((e, i) => ({ id: `e${i}`, sources: [e.from], targets: [e.to] })),
  };
  elk ??= import('elkjs/lib/elk.bundled.js').then((m) => new m.default.default());
  const out = await (await elk).layout(graph);
  const pos = new Map((out.children ?? []).map((c) => [c.id, c]));
  return nodes.map((n) => {
    const p = pos.get(n.id);
    return { ...n, x: Math.round((p?.x ?? 0) + opts.margin), y: Math.round((p?.y ?? 0) + opts.margin) };
  });
}

/** Nodes on a circle in edge order: a cycle reads as a loop, and no straight arrow crosses the middle. */
export function circularLayout(nodes: NodeBox[], opts: Pick<LayoutOptions, 'nodeGap' | 'margin'>): PlacedNode[] {
  const n = nodes.length;
  if (n < 3) return nodes.map((node, i) => ({ ...node, x: opts.margin + i * (node.w + opts.nodeGap), y: opts.margin }));
  // The radius that keeps neighbouring boxes apart: chord between centres >= the larger diagonal plus the gap.
  const diag = Math.max(...nodes.map((b) => Math.hypot(b.w, b.h)));
  const radius = (diag + opts.nodeGap) / (2 * Math.sin(Math.PI / n));
  const placed = nodes.map((node, i) => {
    const angle = -Math.PI / 2 + (2 * Math.PI * i) / n;
    return { ...node, cx: radius * Math.cos(angle), cy: radius * Math.sin(angle) };
  });
  const minX = Math.min(...placed.map((p) => p.cx - p.w / 2));
  const minY = Math.min(...placed.map((p) => p.cy - p.h / 2));
  return placed.map(({ cx, cy, ...node }) => ({
    ...node,
    x: Math.round(cx - node.w / 2 - minX + opts.margin),
    y: Math.round(cy - node.h / 2 - minY + opts.margin),
  }));
}

/**
 * Greedy clean-up for straight arrows: moves single nodes sideways (across the layers) while that raises `score`,
 * e.g. lifting a node off a long arrow that skips its layer. Keeps every node at the top-left margin or beyond.
 */
export function nudge(nodes: PlacedNode[], score: (n: PlacedNode[]) => number, opts: { direction: Direction; step: number; margin: number; rounds?: number }): PlacedNode[] {
  let best = nodes;
  let bestScore = score(nodes);
  const across = opts.direction === 'RIGHT' ? 'y' : 'x';
  for (let round = 0; round < (opts.rounds ?? 3) && bestScore < 1; round++) {
    let improved = false;
    for (let i = 0; i < best.length; i++) {
      for (const k of [1, -1, 2, -2, 3, -3]) {
        const moved = { ...best[i], [across]: best[i][across] + k * opts.step };
        if (moved[across] < opts.margin) continue;
        const candidate = best.map((n, j) => (j === i ? moved : n));
        const s = score(candidate);
        if (s > bestScore + 1e-9) {
          [best, bestScore, improved] = [candidate, s, true];
          break;
        }
      }
    }
    if (!improved) break;
  }
  return best;
}
