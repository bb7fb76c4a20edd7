// What the driver sends to the validator page and what the page sends back. Plain JSON both ways.
// The page imports only types from here, so this file holds no runtime code that needs Node.
import type { ShapeKind } from '../language/actions.ts';

/** An action the page may apply: it has passed the canvas's schema check in Node, and its numbers are capped. */
export type PageAction =
  | { index: number; type: 'create_shape'; id: string; shape: ShapeKind; x: number; y: number; w: number; h: number; text: string }
  | { index: number; type: 'connect'; from: string; to: string; text: string }
  | {
      index: number;
      type: 'update_shape';
      id: string;
      shape?: ShapeKind;
      x?: number;
      y?: number;
      w?: number;
      h?: number;
      text?: string;
    }
  | { index: number; type: 'delete_shape'; id: string }
  | { index: number; type: 'disconnect'; from: string; to: string };

export interface PageDiagram {
  actions: PageAction[];
}

export interface BatchOptions {
  /** Export a PNG of each diagram (base64 in `png`). */
  png?: boolean;
  /** Device pixels per canvas unit in the PNG; lowered for a diagram whose image would exceed `maxPngSide`. */
  pixelRatio?: number;
  maxPngSide?: number;
}

export interface PageOutcome {
  index: number;
  applied: boolean;
  error?: { field: string; reason: string };
}

/** A shape as the editor holds it after the batch: geometry from its page bounds (labels may have grown it). */
export interface ReadShape {
  id: string;
  shape: ShapeKind;
  x: number;
  y: number;
  w: number;
  h: number;
  text: string;
  /** The size the actions asked for; `w`/`h` differ when the editor grew the shape to fit its text. */
  requested: { w: number; h: number };
}

/** An arrow with the shapes its ends are bound to (null: that end is free). */
export interface ReadArrow {
  from: string | null;
  to: string | null;
  text: string;
  bounds: { x: number; y: number; w: number; h: number };
}

export interface Lints {
  /** Shapes whose text needs more room than the size they were given. */
  overflow: { id: string; need: { w: number; h: number } }[];
  /** Pairs of shapes whose page bounds intersect; `area` in square canvas units. */
  overlaps: { a: string; b: string; area: number }[];
  /** Arrows with an end bound to no shape. */
  unboundArrows: { arrow: number; ends: ('start' | 'end')[] }[];
}

export interface PageResult {
  outcomes: PageOutcome[];
  shapes: ReadShape[];
  arrows: ReadArrow[];
  lints: Lints;
  png?: string;
  /** Set when the editor crashed on this diagram: the page must be reloaded before it can take more work. */
  crashed?: string;
}

export interface CanvasgymPageApi {
  version: string;
  ready: boolean;
  /** Applies each diagram on a clean page, in order; stops after a diagram that crashed the editor. */
  applyBatch(diagrams: PageDiagram[], opts: BatchOptions): Promise<PageResult[]>;
}

/** A diagram the page shows on its own canvas (the inspector's "open in tldraw"), or why it could not. */
export type ShownDiagram = { outcomes: PageOutcome[]; read(): { shapes: ReadShape[]; arrows: ReadArrow[] } } | { error: string };

declare global {
  interface Window {
    canvasgym?: CanvasgymPageApi;
    canvasgymShown?: ShownDiagram;
  }
}
