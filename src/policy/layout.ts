// Places a diagram's nodes with ELK's layered algorithm (elkjs): the real graph-layout library, not a hand-rolled grid.
// Straight arrows are what the canvas draws, so candidate layouts are compared by how often a straight arrow
// would cut through a shape or another arrow, and the cleanest one wins.
import ElkBundled from 'elkjs/lib/elk.bundled.js';
import type { ElkNode } from 'elkjs/lib/elk-api.js';
import type { ShapeKind } from '../env/actions.ts';

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

export interface LayoutOptions {
  direction: Direction;
  /** Gap between nodes in one layer. */
  nodeGap: number;
  /** Gap between layers. */
  layerGap: number;
  /** Top-left corner of the drawing. */
  margin: number;
}

// The bundle is CommonJS; under NodeNext its class is the `default` property (which the bundle also sets at runtime).
const elk = new ElkBundled.default();

/** One layered layout in the given direction. */
export async function layeredLayout(nodes: NodeBox[], edges: EdgeRef[], opts: LayoutOptions): Promise<PlacedNode[]> {
  const graph: ElkNode = {
    id: 'root',
    layoutOptions: {
      'elk.algorithm': 'layered',
      'elk.direction': opts.direction,
      'elk.spacing.nodeNode': String(opts.nodeGap),
      'elk.layered.spacing.nodeNodeBetweenLayers': String(opts.layerGap),
      'elk.spacing.edgeLabel': '4',
      'elk.layered.nodePlacement.strategy': 'BRANDES_KOEPF',
      'elk.layered.cycleBreaking.strategy': 'DEPTH_FIRST',
      'elk.edgeLabels.inline': 'false',
      'elk.padding': '[top=0,left=0,bottom=0,right=0]',
    },
    children: nodes.map((n) => ({ id: n.id, width: n.w, height: n.h })),
    edges: edges.map((e, i) => ({
      id: `e${i}`,
      sources: [e.from],
      targets: [e.to],
      ...(e.label ? { labels: [{ text: e.label, width: e.labelW ?? 0, height: e.labelH ?? 0 }] } : {}),
    })),
  };
  const out = await elk.layout(graph);
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

type Point = { x: number; y: number };
const centre = (n: PlacedNode): Point => ({ x: n.x + n.w / 2, y: n.y + n.h / 2 });

function segmentsCross(a: Point, b: Point, c: Point, d: Point): boolean {
  const cross = (p: Point, q: Point, r: Point) => (q.x - p.x) * (r.y - p.y) - (q.y - p.y) * (r.x - p.x);
  const d1 = cross(c, d, a);
  const d2 = cross(c, d, b);
  const d3 = cross(a, b, c);
  const d4 = cross(a, b, d);
  return d1 * d2 < 0 && d3 * d4 < 0;
}

/** Whether segment a-b passes through the rectangle (shrunk by `inset` so grazing a corner does not count). */
function segmentHitsBox(a: Point, b: Point, n: PlacedNode, inset = 2): boolean {
  const x0 = n.x + inset, y0 = n.y + inset, x1 = n.x + n.w - inset, y1 = n.y + n.h - inset;
  // Liang-Barsky clipping: the segment meets the box when the clipped parameter range is non-empty.
  let t0 = 0, t1 = 1;
  const dx = b.x - a.x, dy = b.y - a.y;
  for (const [p, q] of [[-dx, a.x - x0], [dx, x1 - a.x], [-dy, a.y - y0], [dy, y1 - a.y]] as const) {
    if (p === 0) {
      if (q < 0) return false;
      continue;
    }
    const t = q / p;
    if (p < 0) t0 = Math.max(t0, t);
    else t1 = Math.min(t1, t);
    if (t0 > t1) return false;
  }
  return true;
}

/** Straight arrows through shapes count most, arrow-arrow crossings less; lower is better. */
export function layoutPenalty(nodes: PlacedNode[], edges: EdgeRef[]): number {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const segs = edges.flatMap((e) => {
    const a = byId.get(e.from), b = byId.get(e.to);
    return a && b ? [{ e, a: centre(a), b: centre(b) }] : [];
  });
  let penalty = 0;
  for (const s of segs) {
    for (const n of nodes) if (n.id !== s.e.from && n.id !== s.e.to && segmentHitsBox(s.a, s.b, n)) penalty += 10;
  }
  for (let i = 0; i < segs.length; i++) {
    for (let j = i + 1; j < segs.length; j++) {
      const p = segs[i], q = segs[j];
      const shared = [p.e.from, p.e.to].some((id) => id === q.e.from || id === q.e.to);
      if (!shared && segmentsCross(p.a, p.b, q.a, q.b)) penalty += 1;
    }
  }
  return penalty;
}

/** Extent of the drawing, for preferring compact layouts among equally clean ones. */
export function extent(nodes: PlacedNode[]): { w: number; h: number } {
  return {
    w: Math.max(...nodes.map((n) => n.x + n.w)) - Math.min(...nodes.map((n) => n.x)),
    h: Math.max(...nodes.map((n) => n.y + n.h)) - Math.min(...nodes.map((n) => n.y)),
  };
}
