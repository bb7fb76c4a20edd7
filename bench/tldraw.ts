// Diagrams per second through the real tldraw editor, readback only and with PNG export, for 1 and 2 pages.
// Also prints CPU milliseconds per diagram (Node + every Chromium process), which stays meaningful when other work
// shares the machine and wall-clock rates drop. Usage: npx tsx bench/tldraw.ts [--n 200] [--pages 1,2] [--batch 64]
import { readFileSync, readdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import { TldrawDriver } from '../src/diagram/tldraw/driver.ts';
import { prepareDiagram } from '../src/diagram/tldraw/prepare.ts';
import { sampleActions } from '../src/diagram/tldraw/sample.ts';

const { values } = parseArgs({
  options: { n: { type: 'string', default: '200' }, pages: { type: 'string', default: '1,2' }, batch: { type: 'string', default: '64' } },
});
const n = Number(values.n);
const batchSize = Number(values.batch);
const pageCounts = values.pages.split(',').map(Number);
if (![n, batchSize, ...pageCounts].every((v) => Number.isInteger(v) && v > 0)) throw new Error('--n, --batch and --pages must be positive integers');

/** CPU time (ms) of this process and all its descendants, children that already exited included. */
function treeCpuMs(): number {
  const children = new Map<number, number[]>();
  const cpu = new Map<number, number>();
  const tick = 1000 / 100; // USER_HZ
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // exited while we looked
    }
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const pid = Number(entry);
    const ppid = Number(f[1]);
    cpu.set(pid, (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) * tick);
    children.set(ppid, [...(children.get(ppid) ?? []), pid]);
  }
  let total = 0;
  for (const stack = [process.pid]; stack.length > 0; ) {
    const pid = stack.pop()!;
    total += cpu.get(pid) ?? 0;
    stack.push(...(children.get(pid) ?? []));
  }
  return total;
}

const diagrams = Array.from({ length: n }, (_, i) => prepareDiagram(sampleActions(1000 + i)).page);
const shapes = diagrams.reduce((a, d) => a + d.actions.filter((x) => x.type === 'create_shape').length, 0);
console.log(`${n} diagrams, ${(shapes / n).toFixed(1)} shapes each on average; batches of ${batchSize}`);
for (const pages of pageCounts) {
  const t0 = performance.now();
  const driver = await TldrawDriver.start({ pages, batchSize });
  console.log(`${pages} page(s): cold start ${((performance.now() - t0) / 1000).toFixed(2)} s`);
  try {
    await driver.run(diagrams.slice(0, 16 * pages), { png: true });
    for (const png of [false, true]) {
      const t = performance.now();
      const c = treeCpuMs();
      await driver.run(diagrams, { png });
      const s = (performance.now() - t) / 1000;
      const cpu = (treeCpuMs() - c) / n;
      console.log(`  ${png ? 'with PNG export' : 'readback only  '}: ${(n / s).toFixed(1)} diagrams/s, ${cpu.toFixed(0)} CPU ms/diagram (${s.toFixed(2)} s)`);
    }
  } finally {
    await driver.close();
  }
}
console.log(`load average now: ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')} on ${availableParallelism()} cores`);
