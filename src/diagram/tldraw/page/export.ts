// PNG export of a whole batch. tldraw's toImage pays a large fixed cost per call (a React root, a frame of default
// styles, computed-style embedding for every label, font embedding), so the batch is exported as ONE SVG by the editor
// and split per diagram: every shape is a top-level <g> whose page transform says which diagram it belongs to.
// Each diagram's SVG is then rasterized by tldraw's own getSvgAsImage, as toImage would.
import { FileHelpers, getSvgAsImage, type Editor, type TLShapeId } from 'tldraw';
import type { BatchOptions } from '../protocol.ts';
import type { DiagramScope } from './apply.ts';

export const PNG_PADDING = 16;

function liveIds(scope: DiagramScope): TLShapeId[] {
  return [...scope.ids.values(), ...scope.arrows].filter((id) => scope.editor.getShape(id));
}

async function toBase64(blob: Blob): Promise<string> {
  const url = await FileHelpers.blobToDataUrl(blob);
  return url.slice(url.indexOf(',') + 1);
}

const MATRIX = /^matrix\(([^)]*)\)/;

/** Which diagram a top-level shape group belongs to, from the x translation of its page transform. */
function diagramOf(el: Element, stride: number): number | undefined {
  const m = MATRIX.exec(el.getAttribute('transform') ?? '');
  if (!m) return undefined;
  const e = Number(m[1].split(',')[4]);
  return Number.isFinite(e) ? Math.round(e / stride) - 1 : undefined;
}

/** One toImage call per diagram: the slow path, used when the batch SVG has a shape this module cannot place. */
async function exportEach(editor: Editor, scopes: DiagramScope[], opts: BatchOptions): Promise<(string | undefined)[]> {
  const out: (string | undefined)[] = [];
  for (const scope of scopes) {
    const ids = liveIds(scope);
    if (ids.length === 0) {
      out.push(undefined);
      continue;
    }
    const box = editor.getShapesPageBounds(ids)!;
    const { blob } = await editor.toImage(ids, { format: 'png', background: true, padding: PNG_PADDING, pixelRatio: pixelRatioFor(box.w, box.h, opts) });
    out.push(await toBase64(blob));
  }
  return out;
}

function pixelRatioFor(w: number, h: number, opts: BatchOptions): number {
  const side = Math.max(w, h) + 2 * PNG_PADDING;
  return Math.min(opts.pixelRatio ?? 1, (opts.maxPngSide ?? 2048) / side);
}

export async function exportBatch(editor: Editor, scopes: DiagramScope[], stride: number, opts: BatchOptions): Promise<(string | undefined)[]> {
  const ids = scopes.map(liveIds);
  const all = ids.flat();
  if (all.length === 0) return scopes.map(() => undefined);
  const result = await editor.getSvgElement(all, { background: true, padding: 0 });
  if (!result) throw new Error('tldraw produced no SVG for the batch');
  const shared: Element[] = [];
  const own: Element[][] = scopes.map(() => []);
  for (const child of Array.from(result.svg.children)) {
    if (child.tagName.toLowerCase() !== 'g') {
      shared.push(child);
      continue;
    }
    const k = diagramOf(child, stride);
    if (k === undefined || !own[k]) return exportEach(editor, scopes, opts);
    own[k].push(child);
  }
  const serializer = new XMLSerializer();
  return Promise.all(
    scopes.map(async (scope, k) => {
      if (ids[k].length === 0) return undefined;
      const box = editor.getShapesPageBounds(ids[k])!;
      const w = box.w + 2 * PNG_PADDING;
      const h = box.h + 2 * PNG_PADDING;
      const svg = result.svg.cloneNode(false) as SVGSVGElement;
      for (const el of shared) svg.appendChild(el.cloneNode(true));
      for (const el of own[k]) svg.appendChild(el);
      svg.setAttribute('viewBox', `${box.x - PNG_PADDING} ${box.y - PNG_PADDING} ${w} ${h}`);
      svg.setAttribute('width', String(w));
      svg.setAttribute('height', String(h));
      const blob = await getSvgAsImage(serializer.serializeToString(svg), { type: 'png', width: w, height: h, pixelRatio: pixelRatioFor(box.w, box.h, opts) });
      if (!blob) throw new Error(`tldraw could not rasterize diagram ${scope.key}`);
      return toBase64(blob);
    }),
  );
}
