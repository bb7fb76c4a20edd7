// Reads a diagram back out of the editor: shapes with their page bounds and text, arrows with their bindings,
// and the lints computed from that geometry. Runs right after the diagram's transaction, before any render.
import { getArrowBindings, renderPlaintextFromRichText, type Editor, type TLGeoShape, type TLRichText, type TLShape } from 'tldraw';
import type { ShapeKind } from '../../language/actions.ts';
import type { Lints, ReadArrow, ReadShape } from '../protocol.ts';
import type { DiagramScope, ShapeMeta } from './apply.ts';

/** Growth below this (canvas units) is rounding, not overflow. */
const SLACK = 0.5;

function plain(editor: Editor, shape: TLShape): string {
  const { richText } = shape.props as { richText?: TLRichText };
  return richText ? renderPlaintextFromRichText(editor, richText) : '';
}

interface LabelMeasurer {
  getUnscaledLabelSize(shape: TLGeoShape): { w: number; h: number };
}

/**
 * Room a geo shape's label needs: tldraw grows the height itself (growY), but a word wider than the shape
 * is only visible in the label size the geo util measured (a private method, used when present).
 */
function geoNeed(editor: Editor, shape: TLGeoShape): { w: number; h: number } {
  const { w, h, growY, scale } = shape.props;
  const util = editor.getShapeUtil(shape) as unknown as Partial<LabelMeasurer>;
  const label = typeof util.getUnscaledLabelSize === 'function' && plain(editor, shape) !== '' ? util.getUnscaledLabelSize(shape) : { w: 0, h: 0 };
  return { w: Math.max(w, label.w * scale), h: Math.max(h + growY, label.h * scale) };
}

export interface Readback {
  shapes: ReadShape[];
  arrows: ReadArrow[];
  lints: Lints;
}

export function readDiagram(scope: DiagramScope): Readback {
  const { editor, offsetX } = scope;
  const userIdOf = (id: string) => (editor.getShape(id as TLShape['id'])?.meta as unknown as ShapeMeta | undefined)?.userId ?? null;
  const shapes: ReadShape[] = [];
  const overflow: Lints['overflow'] = [];
  for (const [userId, tid] of scope.ids) {
    const shape = editor.getShape(tid);
    if (!shape) continue;
    const b = editor.getShapePageBounds(shape)!;
    const meta = shape.meta as unknown as ShapeMeta;
    const kind: ShapeKind = shape.type === 'text' ? 'text' : (shape as TLGeoShape).props.geo as ShapeKind;
    shapes.push({ id: userId, shape: kind, x: b.x - offsetX, y: b.y, w: b.w, h: b.h, text: plain(editor, shape), requested: { w: meta.w, h: meta.h } });
    const need = shape.type === 'geo' ? geoNeed(editor, shape as TLGeoShape) : { w: b.w, h: b.h };
    if (need.w > meta.w + SLACK || need.h > meta.h + SLACK) overflow.push({ id: userId, need });
  }
  const overlaps: Lints['overlaps'] = [];
  for (let i = 0; i < shapes.length; i++) {
    for (let j = i + 1; j < shapes.length; j++) {
      const a = shapes[i];
      const c = shapes[j];
      const w = Math.min(a.x + a.w, c.x + c.w) - Math.max(a.x, c.x);
      const h = Math.min(a.y + a.h, c.y + c.h) - Math.max(a.y, c.y);
      if (w > 0 && h > 0) overlaps.push({ a: a.id, b: c.id, area: w * h });
    }
  }
  const arrows: ReadArrow[] = [];
  const unboundArrows: Lints['unboundArrows'] = [];
  for (const arrow of scope.liveArrows()) {
    const ends = getArrowBindings(editor, arrow);
    const b = editor.getShapePageBounds(arrow)!;
    const from = ends.start ? userIdOf(ends.start.toId) : null;
    const to = ends.end ? userIdOf(ends.end.toId) : null;
    arrows.push({ from, to, text: plain(editor, arrow), bounds: { x: b.x - offsetX, y: b.y, w: b.w, h: b.h } });
    const free = [...(from === null ? (['start'] as const) : []), ...(to === null ? (['end'] as const) : [])];
    if (free.length > 0) unboundArrows.push({ arrow: arrows.length - 1, ends: free });
  }
  return { shapes, arrows, lints: { overflow, overlaps, unboundArrows } };
}
