// Applies one diagram's actions inside the tldraw editor. The editor's store is the truth: every reference check
// (does this shape exist, is this id taken) asks the editor, not a copy. Numbers arrive already checked and capped,
// so no call here should throw; if one does, the editor crashes and the driver reloads the page.
import {
  createShapeId,
  getArrowBindings,
  renderPlaintextFromRichText,
  toRichText,
  type Editor,
  type TLArrowShape,
  type TLPageId,
  type TLRichText,
  type TLShape,
  type TLShapeId,
} from 'tldraw';
import type { ShapeKind } from '../../language/actions.ts';
import type { PageAction, PageOutcome } from '../protocol.ts';

/** Label style: tldraw's plain sans font at its small size, closest to what the built-in renderer draws. */
export const LABEL_STYLE = { font: 'sans', size: 's' } as const;
/** Bend (canvas units) given to each further arrow between the same two shapes, so parallel edges stay apart. */
const PARALLEL_BEND = 40;

export interface ShapeMeta {
  userId: string;
  w: number;
  h: number;
}

/** One diagram's slice of the editor page: shapes sit at an x offset so several diagrams share one page. */
export class DiagramScope {
  readonly ids = new Map<string, TLShapeId>();
  readonly arrows: TLShapeId[] = [];
  private next = 0;

  constructor(
    readonly editor: Editor,
    /** The editor page diagrams are built on: for the batch API never the current one, so the live canvas never
     *  renders them; the current one for a diagram shown to a person (main.tsx). */
    readonly pageId: TLPageId,
    readonly key: string,
    readonly offsetX: number,
  ) {}

  newId(): TLShapeId {
    return createShapeId(`${this.key}_${this.next++}`);
  }

  /** The editor's shape for a diagram id, or undefined when the editor holds none. */
  shape(userId: string): TLShape | undefined {
    const tid = this.ids.get(userId);
    return tid ? this.editor.getShape(tid) : undefined;
  }

  liveArrows(): TLArrowShape[] {
    return this.arrows.flatMap((id) => {
      const s = this.editor.getShape<TLArrowShape>(id);
      return s ? [s] : [];
    });
  }
}

type Result = { reason: string; field: string } | null;
const refuse = (field: string, reason: string): Result => ({ field, reason });

function shapeRecord(scope: DiagramScope, id: TLShapeId, userId: string, s: { shape: ShapeKind; x: number; y: number; w: number; h: number; text: string }) {
  const meta: ShapeMeta = { userId, w: s.w, h: s.h };
  const base = { id, parentId: scope.pageId, x: s.x + scope.offsetX, y: s.y, meta: { ...meta } };
  const richText = toRichText(s.text);
  if (s.shape === 'text') {
    return { ...base, type: 'text' as const, props: { richText, autoSize: false, w: s.w, ...LABEL_STYLE } };
  }
  return { ...base, type: 'geo' as const, props: { geo: s.shape, w: s.w, h: s.h, richText, ...LABEL_STYLE } };
}

function kindOf(shape: TLShape): ShapeKind {
  if (shape.type === 'text') return 'text';
  return (shape.props as { geo: ShapeKind }).geo;
}

function arrowBinding(arrow: TLShapeId, target: TLShapeId, terminal: 'start' | 'end') {
  return {
    type: 'arrow' as const,
    fromId: arrow,
    toId: target,
    props: { terminal, normalizedAnchor: { x: 0.5, y: 0.5 }, isPrecise: false, isExact: false, snap: 'none' as const },
  };
}

function createArrow(scope: DiagramScope, from: TLShapeId, to: TLShapeId, text: string): void {
  const { editor } = scope;
  const a = editor.getShapePageBounds(from)!.center;
  const b = editor.getShapePageBounds(to)!.center;
  const between = scope.liveArrows().filter((arrow) => {
    const ends = getArrowBindings(editor, arrow);
    const pair = [ends.start?.toId, ends.end?.toId];
    return (pair[0] === from && pair[1] === to) || (pair[0] === to && pair[1] === from);
  }).length;
  // 0, +1, -1, +2, -2, ... steps of bend: the first arrow is straight, later ones fan out on alternating sides.
  const step = Math.ceil(between / 2) * (between % 2 === 1 ? 1 : -1);
  const id = scope.newId();
  editor.createShape({
    id,
    type: 'arrow',
    parentId: scope.pageId,
    x: a.x,
    y: a.y,
    props: { start: { x: 0, y: 0 }, end: { x: b.x - a.x, y: b.y - a.y }, richText: toRichText(text), bend: step * PARALLEL_BEND, ...LABEL_STYLE },
  });
  editor.createBindings([arrowBinding(id, from, 'start'), arrowBinding(id, to, 'end')]);
  scope.arrows.push(id);
}

function arrowsTouching(scope: DiagramScope, target: TLShapeId): TLArrowShape[] {
  return scope.liveArrows().filter((arrow) => {
    const ends = getArrowBindings(scope.editor, arrow);
    return ends.start?.toId === target || ends.end?.toId === target;
  });
}

function applyOne(scope: DiagramScope, a: PageAction): Result {
  const { editor } = scope;
  switch (a.type) {
    case 'create_shape': {
      if (scope.shape(a.id)) return refuse('id', `duplicate shape id: ${a.id}`);
      const id = scope.newId();
      editor.createShape(shapeRecord(scope, id, a.id, a));
      scope.ids.set(a.id, id);
      return null;
    }
    case 'connect': {
      const from = scope.shape(a.from);
      if (!from) return refuse('from', `arrow source does not exist: ${a.from}`);
      const to = scope.shape(a.to);
      if (!to) return refuse('to', `arrow target does not exist: ${a.to}`);
      if (from.id === to.id) return refuse('to', 'arrow cannot connect a shape to itself');
      createArrow(scope, from.id, to.id, a.text);
      return null;
    }
    case 'update_shape': {
      const shape = scope.shape(a.id);
      if (!shape) return refuse('id', `shape does not exist: ${a.id}`);
      const meta = shape.meta as unknown as ShapeMeta;
      const bounds = editor.getShapePageBounds(shape)!;
      const current = {
        shape: kindOf(shape),
        x: bounds.x - scope.offsetX,
        y: bounds.y,
        w: meta.w,
        h: meta.h,
        text: a.text ?? currentText(editor, shape),
      };
      const next = {
        shape: a.shape ?? current.shape,
        x: a.x ?? current.x,
        y: a.y ?? current.y,
        w: a.w ?? current.w,
        h: a.h ?? current.h,
        text: current.text,
      };
      const record = shapeRecord(scope, shape.id, a.id, next);
      if (record.type === shape.type) {
        editor.updateShape(record);
        return null;
      }
      // geo <-> text: tldraw cannot change a shape's type in place, so rebuild it and rebind its arrows.
      const touching = arrowsTouching(scope, shape.id).map((arrow) => {
        const ends = getArrowBindings(editor, arrow);
        return { arrow: arrow.id, start: ends.start?.toId === shape.id, end: ends.end?.toId === shape.id };
      });
      editor.deleteShapes([shape.id]);
      editor.createShape(record);
      editor.createBindings(
        touching.flatMap((t) => [
          ...(t.start ? [arrowBinding(t.arrow, shape.id, 'start')] : []),
          ...(t.end ? [arrowBinding(t.arrow, shape.id, 'end')] : []),
        ]),
      );
      return null;
    }
    case 'delete_shape': {
      const shape = scope.shape(a.id);
      if (!shape) return refuse('id', `shape does not exist: ${a.id}`);
      // The action language deletes attached arrows too; tldraw alone would leave them dangling.
      editor.deleteShapes([...arrowsTouching(scope, shape.id).map((s) => s.id), shape.id]);
      scope.ids.delete(a.id);
      return null;
    }
    case 'disconnect': {
      const from = scope.ids.get(a.from);
      const to = scope.ids.get(a.to);
      const doomed = scope.liveArrows().filter((arrow) => {
        const ends = getArrowBindings(editor, arrow);
        return from !== undefined && to !== undefined && ends.start?.toId === from && ends.end?.toId === to;
      });
      if (doomed.length === 0) return refuse('from', `no arrow from ${a.from} to ${a.to}`);
      editor.deleteShapes(doomed.map((s) => s.id));
      return null;
    }
  }
}

function currentText(editor: Editor, shape: TLShape): string {
  const { richText } = shape.props as { richText?: TLRichText };
  return richText ? renderPlaintextFromRichText(editor, richText) : '';
}

/** Applies a diagram's actions in one editor transaction (one store update, no history). */
export function applyDiagram(scope: DiagramScope, actions: PageAction[]): PageOutcome[] {
  const outcomes: PageOutcome[] = [];
  scope.editor.run(
    () => {
      for (const a of actions) {
        const r = applyOne(scope, a);
        outcomes.push(r ? { index: a.index, applied: false, error: r } : { index: a.index, applied: true });
      }
    },
    { history: 'ignore' },
  );
  return outcomes;
}
