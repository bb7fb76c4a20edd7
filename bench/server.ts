// Load test of `canvasgym serve`: many concurrent clients on 127.0.0.1 POST /reward for a bounded time; prints rewards/s
// over HTTP against in-process scoring of the same rows, and request latency percentiles.
//   npx tsx bench/server.ts [--clients 16] [--batch 16] [--seconds 5] [--reward strong]
// The server runs in its own process (as in use), the clients in this one: on 2 cores, one core each.
import { spawn } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { getRubric } from '../src/reward/presets.ts';
import { scoreRows } from '../src/server/reward.ts';
import { generateTasks } from '../src/tasks/generate.ts';

const { values } = parseArgs({
  options: {
    clients: { type: 'string', default: '16' },
    batch: { type: 'string', default: '16' },
    seconds: { type: 'string', default: '5' },
    reward: { type: 'string', default: 'strong' },
  },
});
const clients = Number(values.clients);
const batch = Number(values.batch);
const seconds = Number(values.seconds);
for (const [k, v] of Object.entries({ clients, batch, seconds })) {
  if (!Number.isFinite(v) || v <= 0 || v > 10_000) throw new Error(`--${k} must be a positive number up to 10000, got ${v}`);
}

/** A realistic mix: full answers, partial ones, prose-wrapped JSON and junk, with and without specs. */
function rows(n: number) {
  return generateTasks({ split: 'train', n, seed: 1 }).map((t, i) => {
    const names = i % 5 === 1 ? t.spec.entities.slice(0, 2) : t.spec.entities;
    const actions = [
      ...names.map((text, k) => ({ type: 'create_shape', id: `n${k}`, shape: 'rectangle', x: 40 + 240 * (k % 4), y: 40 + 120 * Math.floor(k / 4), w: 200, h: 60, text })),
      ...t.spec.edges.map(([a, b]) => ({ type: 'connect', from: `n${names.indexOf(a)}`, to: `n${names.indexOf(b)}` })),
    ];
    const json = JSON.stringify({ actions });
    const completion = i % 5 === 4 ? 'I cannot draw that.' : i % 5 === 3 ? `Here you go:\n${json}\nDone.` : json;
    return { prompt: t.prompt, completion, ...(i % 2 === 0 ? { spec: t.spec } : {}) };
  });
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

async function startServerProcess(): Promise<{ url: string; stop: () => void }> {
  const child = spawn(process.execPath, [join(import.meta.dirname, '..', 'bin', 'canvasgym.js'), 'serve', '--port', '0', '--reward', values.reward!], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error('server did not start within 60 s')), 60_000);
    child.stdout.on('data', (d) => {
      out += d;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.on('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
  return { url, stop: () => child.kill('SIGTERM') };
}

async function main() {
  const pool = rows(512);
  const rubric = getRubric(values.reward!);
  const batches = Array.from({ length: Math.ceil(pool.length / batch) }, (_, i) => pool.slice(i * batch, (i + 1) * batch));

  // In-process: the same function the server calls, on this one thread, for the same time; measured before and after
  // the HTTP run and averaged, since on a shared machine the load moves while the bench runs.
  const inProcessRate = () => {
    let scored = 0;
    const t0 = performance.now();
    for (let i = 0; performance.now() - t0 < seconds * 1000; i++) scored += scoreRows(rubric, batches[i % batches.length], 1_000_000).results.length;
    return scored / ((performance.now() - t0) / 1000);
  };
  const before = inProcessRate();

  const server = await startServerProcess();
  try {
    const bodies = batches.map((b) => JSON.stringify(b));
    // Warm-up so that the server's first-call compilation is not timed.
    for (const b of bodies.slice(0, 4)) await fetch(`${server.url}/reward`, { method: 'POST', body: b });
    const latencies: number[] = [];
    let rewards = 0;
    let failures = 0;
    const start = performance.now();
    const deadline = start + seconds * 1000;
    await Promise.all(
      Array.from({ length: clients }, async (_, c) => {
        for (let i = c; performance.now() < deadline; i += clients) {
          const t = performance.now();
          const res = await fetch(`${server.url}/reward`, { method: 'POST', body: bodies[i % bodies.length], headers: { 'content-type': 'application/json' } });
          const json = (await res.json()) as { results?: unknown[] };
          latencies.push(performance.now() - t);
          if (res.ok && json.results) rewards += json.results.length;
          else failures++;
        }
      }),
    );
    const overHttp = rewards / ((performance.now() - start) / 1000);
    const inProcess = (before + inProcessRate()) / 2;
    latencies.sort((a, b) => a - b);
    const f = (v: number) => v.toFixed(1);
    process.stdout.write(
      [
        `canvasgym server load test: ${clients} clients, ${batch} rows per request, ${seconds} s, reward ${values.reward}; ${cpus().length} cores, load average ${loadavg()[0].toFixed(1)}`,
        `in-process scoring: ${inProcess.toFixed(0)} rewards/s (one thread)`,
        `over HTTP:          ${overHttp.toFixed(0)} rewards/s (${((100 * overHttp) / inProcess).toFixed(0)}% of in-process), ${latencies.length} requests, ${failures} failed`,
        `latency per request: p50 ${f(percentile(latencies, 50))} ms, p90 ${f(percentile(latencies, 90))} ms, p99 ${f(percentile(latencies, 99))} ms`,
      ].join('\n') + '\n',
    );
  } finally {
    server.stop();
  }
}

await main();
