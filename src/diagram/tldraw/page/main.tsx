// The validator page: the real tldraw editor plus `window.canvasgym`, the small API the Node driver calls.
// Every asset (fonts, icons, translations) is bundled by vite from @tldraw/assets: the page makes no external request.
import { getAssetUrlsByImport } from '@tldraw/assets/imports.vite.js';
import { createRoot } from 'react-dom/client';
import { PageRecordType, Tldraw, toRichText, type Editor } from 'tldraw';
import 'tldraw/tldraw.css';
import type { BatchOptions, CanvasgymPageApi, PageDiagram, PageResult } from '../protocol.ts';
import { DiagramScope, LABEL_STYLE, applyDiagram } from './apply.ts';
import { exportBatch } from './export.ts';
import { readDiagram } from './readback.ts';

/** Diagrams exported together share the editor page, each shifted this far right (coordinates are capped well below). */
const STRIDE = 100_000;
/** Diagrams exported together as one SVG: enough to spread the export's fixed cost, few enough to keep the page small. */
const PNG_GROUP = 8;

function crashOf(editor: Editor): string | undefined {
  const err = (editor as unknown as { getCrashingError(): unknown }).getCrashingError();
  return err ? String((err as Error).message ?? err) : undefined;
}

/**
 * Diagrams are built on a page of their own, not the current page: the live canvas then never mounts their shapes,
 * which matters when exports yield to the event loop (a mounted shape deleted under React costs an error-boundary
 * pass each) and keeps the canvas idle.
 */
const WORK_PAGE = PageRecordType.createId('canvasgym-work');

function clearPage(editor: Editor): void {
  editor.run(() => editor.deleteShapes([...editor.getPageShapeIds(WORK_PAGE)]), { history: 'ignore' });
  editor.clearHistory();
}

function makeApi(editor: Editor): CanvasgymPageApi {
  return {
    version: '1',
    ready: true,
    async applyBatch(diagrams: PageDiagram[], opts: BatchOptions): Promise<PageResult[]> {
      const results: PageResult[] = [];
      // Work through the batch in small groups and clear the page after each: tldraw's per-change work grows with
      // the number of shapes on the page, so a page kept small is several times faster than one holding the batch.
      const group = opts.png ? PNG_GROUP : 1;
      for (let start = 0; start < diagrams.length; start += group) {
        const scopes: DiagramScope[] = [];
        // Apply and read synchronously: React gets no chance to render shapes nobody looks at.
        for (const [k, d] of diagrams.slice(start, start + group).entries()) {
          const scope = new DiagramScope(editor, WORK_PAGE, `d${k}`, (k + 1) * STRIDE);
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
          const pngs = await exportBatch(editor, scopes, STRIDE, opts);
          pngs.forEach((png, k) => {
            if (png !== undefined) results[start + k].png = png;
          });
        }
        clearPage(editor);
      }
      return results;
    },
  };
}

/** Measuring a label before its font has loaded gives fallback-font sizes: load the label font first. */
async function warmUp(editor: Editor): Promise<void> {
  editor.run(
    () => {
      editor.createPage({ id: WORK_PAGE, name: 'canvasgym work' });
      editor.createShape({ type: 'geo', x: 0, y: 0, props: { w: 100, h: 50, richText: toRichText('warm up'), ...LABEL_STYLE } });
      editor.createShape({ type: 'text', x: 0, y: 100, props: { richText: toRichText('warm up'), ...LABEL_STYLE } });
    },
    { history: 'ignore' },
  );
  await editor.fonts.loadRequiredFontsForCurrentPage();
  await document.fonts.ready;
  editor.run(() => editor.deleteShapes([...editor.getCurrentPageShapeIds()]), { history: 'ignore' });
  editor.clearHistory();
}

/**
 * The inspector's "open in tldraw": `?actions=URL` names a diagram's page actions on the same origin, which are built
 * on the current page for a person to look at, move and export. The editor's own reading of them stays on
 * `window.canvasgymShown` (the inspector's test reads it back).
 */
async function showRequested(editor: Editor): Promise<void> {
  const asked = new URLSearchParams(location.search).get('actions');
  if (!asked) return;
  const url = new URL(asked, location.href);
  if (url.origin !== location.origin) throw new Error(`actions must come from this page's own server, not ${url.origin}`);
  const diagram = (await (await fetch(url)).json()) as PageDiagram;
  const scope = new DiagramScope(editor, editor.getCurrentPageId(), 'shown', 0);
  const outcomes = applyDiagram(scope, diagram.actions);
  editor.zoomToFit();
  window.canvasgymShown = { outcomes, read: () => readDiagram(scope) };
}

function App() {
  return (
    <Tldraw
      assetUrls={getAssetUrlsByImport()}
      onMount={(editor) => {
        void warmUp(editor)
          .then(() => {
            window.canvasgym = makeApi(editor);
            return showRequested(editor);
          })
          .catch((err: unknown) => {
            window.canvasgymShown = { error: String((err as Error).message ?? err) };
          });
      }}
    />
  );
}

createRoot(document.getElementById('root')!).render(<App />);
