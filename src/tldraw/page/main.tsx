// The validator page: the real tldraw editor plus `window.canvasgym`, the small API the Node driver calls.
// Every asset (fonts, icons, translations) is bundled by vite from @tldraw/assets: the page makes no external request.
import { getAssetUrlsByImport } from '@tldraw/assets/imports.vite.js';
import { createRoot } from 'react-dom/client';
import { FileHelpers, Tldraw, toRichText, type Editor, type TLShapeId } from 'tldraw';
import 'tldraw/tldraw.css';
import type { BatchOptions, CanvasgymPageApi, PageDiagram, PageResult } from '../protocol.ts';
import { DiagramScope, LABEL_STYLE, applyDiagram } from './apply.ts';
import { readDiagram } from './readback.ts';

/** Diagrams of one batch share the editor page, each shifted this far right (coordinates are capped well below). */
const STRIDE = 100_000;
const PNG_PADDING = 16;

function crashOf(editor: Editor): string | undefined {
  const err = (editor as unknown as { getCrashingError(): unknown }).getCrashingError();
  return err ? String((err as Error).message ?? err) : undefined;
}

async function exportPng(scope: DiagramScope, opts: BatchOptions): Promise<string | undefined> {
  const ids: TLShapeId[] = [...scope.ids.values(), ...scope.arrows].filter((id) => scope.editor.getShape(id));
  if (ids.length === 0) return undefined;
  const box = scope.editor.getShapesPageBounds(ids)!;
  const side = Math.max(box.w, box.h) + 2 * PNG_PADDING;
  const pixelRatio = Math.min(opts.pixelRatio ?? 1, (opts.maxPngSide ?? 2048) / side);
  const { blob } = await scope.editor.toImage(ids, { format: 'png', background: true, padding: PNG_PADDING, pixelRatio });
  const url = await FileHelpers.blobToDataUrl(blob);
  return url.slice(url.indexOf(',') + 1);
}

function clearPage(editor: Editor): void {
  editor.run(() => editor.deleteShapes([...editor.getCurrentPageShapeIds()]), { history: 'ignore' });
  editor.clearHistory();
}

function makeApi(editor: Editor): CanvasgymPageApi {
  return {
    version: '1',
    ready: true,
    async applyBatch(diagrams: PageDiagram[], opts: BatchOptions): Promise<PageResult[]> {
      const results: PageResult[] = [];
      const scopes: DiagramScope[] = [];
      // Apply and read every diagram in one synchronous pass: React gets no chance to render shapes nobody looks at.
      for (const [k, d] of diagrams.entries()) {
        const scope = new DiagramScope(editor, `d${k}`, (k + 1) * STRIDE);
        let outcomes: PageResult['outcomes'] = [];
        let thrown: string | undefined;
        try {
          outcomes = applyDiagram(scope, d.actions);
        } catch (err) {
          thrown = String((err as Error).message ?? err);
        }
        const crashed = crashOf(editor) ?? thrown;
        if (crashed) {
          results.push({ outcomes, shapes: [], arrows: [], lints: { overflow: [], overlaps: [], unboundArrows: [] }, crashed });
          return results;
        }
        results.push({ outcomes, ...readDiagram(scope) });
        scopes.push(scope);
      }
      if (opts.png) {
        const pngs = await Promise.all(scopes.map((s) => exportPng(s, opts)));
        pngs.forEach((png, k) => {
          if (png !== undefined) results[k].png = png;
        });
      }
      clearPage(editor);
      return results;
    },
  };
}

/** Measuring a label before its font has loaded gives fallback-font sizes: load the label font first. */
async function warmUp(editor: Editor): Promise<void> {
  editor.run(
    () => {
      editor.createShape({ type: 'geo', x: 0, y: 0, props: { w: 100, h: 50, richText: toRichText('warm up'), ...LABEL_STYLE } });
      editor.createShape({ type: 'text', x: 0, y: 100, props: { richText: toRichText('warm up'), ...LABEL_STYLE } });
    },
    { history: 'ignore' },
  );
  await editor.fonts.loadRequiredFontsForCurrentPage();
  await document.fonts.ready;
  clearPage(editor);
}

function App() {
  return (
    <Tldraw
      assetUrls={getAssetUrlsByImport()}
      onMount={(editor) => {
        void warmUp(editor).then(() => {
          window.canvasgym = makeApi(editor);
        });
      }}
    />
  );
}

createRoot(document.getElementById('root')!).render(<App />);
