// The canvas state: shapes by id (in creation order) and arrows. Plain data, serializable to JSON and back.
import { z } from 'zod';
import { ShapeKind, MAX_SIDE } from './actions.ts';

export const ShapeState = z.object({
  id: z.string().min(1),
  shape: ShapeKind,
  x: z.number(),
  y: z.number(),
  w: z.number().gt(0).lte(MAX_SIDE),
  h: z.number().gt(0).lte(MAX_SIDE),
  text: z.string(),
});
export type Shape = z.infer<typeof ShapeState>;

export const ArrowState = z.object({ from: z.string().min(1), to: z.string().min(1), text: z.string() });
export type Arrow = z.infer<typeof ArrowState>;

export const CanvasState = z.object({ shapes: z.array(ShapeState), arrows: z.array(ArrowState) });
export type CanvasJson = z.infer<typeof CanvasState>;

export class Canvas {
  readonly shapes = new Map<string, Shape>();
  arrows: Arrow[] = [];

  clone(): Canvas {
    const c = new Canvas();
    for (const [id, s] of this.shapes) c.shapes.set(id, { ...s });
    c.arrows = this.arrows.map((a) => ({ ...a }));
    return c;
  }

  shapeList(): Shape[] {
    return [...this.shapes.values()];
  }

  toJSON(): CanvasJson {
    return { shapes: this.shapeList(), arrows: this.arrows };
  }

  /** Rebuilds a canvas from its JSON form; throws a zod error naming the bad field, or on dangling arrows. */
  static fromJSON(json: unknown): Canvas {
    const data = CanvasState.parse(json);
    const c = new Canvas();
    for (const s of data.shapes) {
      if (c.shapes.has(s.id)) throw new Error(`canvas JSON: duplicate shape id ${JSON.stringify(s.id)}`);
      c.shapes.set(s.id, s);
    }
    for (const [i, a] of data.arrows.entries()) {
      if (!c.shapes.has(a.from) || !c.shapes.has(a.to)) {
        throw new Error(`canvas JSON: arrow ${i} refers to a missing shape (${a.from} -> ${a.to})`);
      }
    }
    c.arrows = data.arrows;
    return c;
  }
}
