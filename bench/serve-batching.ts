// Latency of the OpenAI-compatible student server, one request alone against several at once: requests that arrive
// together are decoded in one batch (src/server/decoder.ts), against the same server decoding one request at a time
// (--max-sequences 1: no batching).
//   npx tsx bench/serve-batching.ts [--ckpt runs/default/sft/final] [--concurrency 8] [--max-tokens 128] [--rounds 3] [--threads 2]
// Every request is a held-out diagram task at temperature 0.7 with its own seed and the same max_tokens, the same
// requests in every phase. The phases take turns, --rounds times, so that all see the same spread of load on a shared
// machine; the load average is printed beside the figures.
import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { StudentPolicy } from '../src/policy/student.ts';
import { startServer, type RunningServer } from '../src/server/app.ts';
import { generateTasks } from '../src/diagram/tasks/generate.ts';

const { values: flags } = parseArgs({
  options: {
    ckpt: { type: 'string', default: 'runs/default/sft/final' },
    concurrency: { type: 'string', default: '8' },
    'max-tokens': { type: 'string', default: '128' },
    rounds: { type: 'string', default: '3' },
    threads: { type: 'string', default: '2' },
  },
});
const concurrency = Number(flags.concurrency);
const maxTokens = Number(flags['max-tokens']);
const rounds = Number(flags.rounds);

const student = await StudentPolicy.load(flags.ckpt!, { threads: Number(flags.threads) });
const tasks = generateTasks({ split: 'heldout', n: concurrency, seed: 3 });
const servers: Record<string, RunningServer> = {
  batched: await startServer({ port: 0, policy: student, scoringThreads: 0 }),
  'one at a time': await startServer({ port: 0, policy: student, scoringThreads: 0, maxSequences: 1 }),
};

/** Seconds from sending a chat request to its last byte, and the tokens it generated. */
async function ask(srv: RunningServer, i: number, seed: number): Promise<{ s: number; tokens: number }> {
  const t0 = performance.now();
  const res = await fetch(`${srv.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    // The student may stop before max_tokens: the tokens are counted, and the rates are per token.
    body: JSON.stringify({ model: 'canvasgym-student', messages: [{ role: 'user', content: tasks[i % tasks.length].prompt }], temperature: 0.7, seed, max_tokens: maxTokens }),
  });
  const body = (await res.json()) as { usage: { completion_tokens: number } };
  if (!res.ok) throw new Error(JSON.stringify(body));
  return { s: (performance.now() - t0) / 1000, tokens: body.usage.completion_tokens };
}

interface Phase {
  latencies: number[];
  walls: number[];
  tokens: number;
}
const phases: Record<string, Phase> = {};
const phase = (name: string) => (phases[name] ??= { latencies: [], walls: [], tokens: 0 });

// Warm-up: the JIT and the kernels' first calls.
for (const srv of Object.values(servers)) await Promise.all(Array.from({ length: 2 }, (_, i) => ask(srv, i, 1)));

const load0 = loadavg();
for (let r = 0; r < rounds; r++) {
  for (let i = 0; i < concurrency; i++) {
    const p = phase('1 request alone');
    const t = await ask(servers.batched, i, 1000 * r + i);
    p.latencies.push(t.s);
    p.walls.push(t.s);
    p.tokens += t.tokens;
  }
  for (const [name, srv] of Object.entries(servers)) {
    const p = phase(`${concurrency} at once, ${name}`);
    const t0 = performance.now();
    const all = await Promise.all(Array.from({ length: concurrency }, (_, i) => ask(srv, i, 1000 * r + i)));
    p.walls.push((performance.now() - t0) / 1000);
    for (const t of all) {
      p.latencies.push(t.s);
      p.tokens += t.tokens;
    }
  }
  process.stderr.write(`round ${r + 1}/${rounds} done\n`);
}
const load1 = loadavg();

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const alone = median(phases['1 request alone'].latencies);
console.log(`\n${flags.ckpt} (${student.model.config.nLayer} layers, d=${student.model.config.nEmbd}, ctx ${student.model.config.nCtx}), ${flags.threads} threads, max_tokens ${maxTokens}, ${rounds} rounds`);
console.log(`machine: ${cpus().length} cores (${cpus()[0]?.model}); load average ${load0.map((x) => x.toFixed(1)).join(' ')} at start, ${load1.map((x) => x.toFixed(1)).join(' ')} at end\n`);
console.log('| phase | median latency | max latency | wall per round | tokens/s | median latency / alone |');
console.log('|---|---|---|---|---|---|');
for (const [name, p] of Object.entries(phases)) {
  const wall = p.walls.reduce((s, x) => s + x, 0);
  const tokensPerS = p.tokens / wall;
  console.log(`| ${name} | ${median(p.latencies).toFixed(2)} s | ${Math.max(...p.latencies).toFixed(2)} s | ${median(p.walls).toFixed(2)} s | ${tokensPerS.toFixed(0)} | ${(median(p.latencies) / alone).toFixed(2)}x |`);
}
const health = (await (await fetch(`${servers.batched.url}/health`)).json()) as { generation: unknown };
console.log(`\nbatched server: ${JSON.stringify(health.generation)}`);
for (const srv of Object.values(servers)) await srv.close();
await student.close();
