// Diagrams per second through the real tldraw editor, readback only and with PNG export.
// Usage: npx tsx bench/tldraw.ts [--n 200] [--pages 1] [--batch 32]
import { parseArgs } from 'node:util';
import { TldrawDriver } from '../src/tldraw/driver.ts';
import { prepareDiagram } from '../src/tldraw/prepare.ts';
import { sampleActions } from '../src/tldraw/sample.ts';

const { values } = parseArgs({ options: { n: { type: 'string', default: '200' }, pages: { type: 'string', default: '1' }, batch: { type: 'string', default: '32' } } });
const n = Number(values.n);
const pages = Number(values.pages);
const batchSize = Number(values.batch);
if (![n, pages, batchSize].every((v) => Number.isInteger(v) && v > 0)) throw new Error('--n, --pages and --batch must be positive integers');

const diagrams = Array.from({ length: n }, (_, i) => prepareDiagram(sampleActions(1000 + i)).page);
const t0 = performance.now();
const driver = await TldrawDriver.start({ pages, batchSize });
console.log(`cold start: ${((performance.now() - t0) / 1000).toFixed(2)} s (${pages} page(s), batches of ${batchSize})`);
try {
  await driver.run(diagrams.slice(0, Math.min(n, batchSize)), { png: true });
  for (const png of [false, true]) {
    const t = performance.now();
    const results = await driver.run(diagrams, { png });
    const s = (performance.now() - t) / 1000;
    const shapes = results.reduce((a, r) => a + r.shapes.length, 0);
    console.log(`${png ? 'with PNG export' : 'readback only  '}: ${(n / s).toFixed(1)} diagrams/s (${n} diagrams, ${shapes} shapes, ${s.toFixed(2)} s)`);
  }
} finally {
  await driver.close();
}
