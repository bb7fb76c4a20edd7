// Load test of the canvasgym server: concurrent clients on 127.0.0.1 POST /reward for a bounded time; prints rewards/s
// over HTTP against in-process scoring of the same rows, both absolute and per CPU-second, and latency percentiles.
//   npx tsx bench/server.ts [--clients 16] [--batch 16] [--seconds 5] [--rounds 2] [--threads <cores>] [--reward strong]
// The server runs in its own process (startServer, what `canvasgym serve` runs) with --threads scoring threads (0: the
// HTTP thread scores); the clients share one thread of this process (node:http, keep-alive). In-process scoring is the
// server's own row function on this process's one thread. On a shared machine wall-clock rates move with the load, so
// each side's CPU time is measured too (rewards per CPU-second is the per-core figure), and the two sides take turns,
// --rounds times --seconds each, so that both see the same spread of load. Both are warmed up first on a fixed amount of
// work (the JIT makes the first passes several times slower), each scoring thread its share.
import { fork, type ChildProcess } from 'node:child_process';
import { Agent, request } from 'node:http';
import { availableParallelism, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { getRubric } from '../src/diagram/reward/presets.ts';
import { startServer } from '../src/server/app.ts';
import { scoreRows } from '../src/server/reward.ts';
import { generateTasks } from '../src/diagram/tasks/generate.ts';

const SERVER_ROLE = 'CANVASGYM_BENCH_SERVER';

/** CPU-seconds this process has used, all its threads together. */
const cpuSeconds = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

/** The server side: started by the bench with fork(), it reports its address and, when asked, its CPU time. */
async function serve(): Promise<void> {
  const { reward, threads } = JSON.parse(process.env[SERVER_ROLE]!) as { reward: string; threads: number };
  const srv = await startServer({ host: '127.0.0.1', port: 0, reward, scoringThreads: threads });
  await srv.pool.warm();
  process.on('message', (m: string) => {
    if (m === 'cpu') process.send!({ cpu: cpuSeconds() });
    if (m === 'stop') void srv.close().then(() => process.exit(0));
  });
  process.send!({ url: srv.url, ready: srv.pool.stats.ready });
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

class ServerProcess {
  private constructor(
    private readonly child: ChildProcess,
    readonly url: string,
    readonly ready: number,
  ) {}

  static async start(reward: string, threads: number): Promise<ServerProcess> {
    const child = fork(process.argv[1], [], { env: { ...process.env, [SERVER_ROLE]: JSON.stringify({ reward, threads }) }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    const hello = await new Promise<{ url: string; ready: number }>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('server did not start within 120 s')), 120_000);
      child.once('message', (m) => {
        clearTimeout(timer);
        resolve(m as { url: string; ready: number });
      });
      child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
    });
    return new ServerProcess(child, hello.url, hello.ready);
  }

  cpu(): Promise<number> {
    return new Promise((resolve) => {
      this.child.once('message', (m) => resolve((m as { cpu: number }).cpu));
      this.child.send('cpu');
    });
  }

  stop(): void {
    this.child.send('stop');
  }
}

function post(agent: Agent, url: URL, body: Buffer): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { agent, host: url.hostname, port: url.port, path: '/reward', method: 'POST', headers: { 'content-type': 'application/json', 'content-length': body.length } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode!, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function main() {
  const { values } = parseArgs({
    options: {
      clients: { type: 'string', default: '16' },
      batch: { type: 'string', default: '16' },
      seconds: { type: 'string', default: '5' },
      rounds: { type: 'string', default: '2' },
      threads: { type: 'string', default: String(availableParallelism()) },
      reward: { type: 'string', default: 'strong' },
    },
  });
  const pool = rows(512);
  const clients = Number(values.clients);
  const batch = Number(values.batch);
  const seconds = Number(values.seconds);
  const threads = Number(values.threads);
  const rounds = Number(values.rounds);
  for (const [k, v, lo, hi] of [['clients', clients, 1, 1024], ['batch', batch, 1, 1024], ['seconds', seconds, 0.1, 600], ['rounds', rounds, 1, 100], ['threads', threads, 0, 64]] as const) {
    if (!Number.isFinite(v) || v < lo || v > hi) throw new Error(`--${k} must be a number from ${lo} to ${hi}, got ${v}`);
  }
  if (rounds * seconds > 600) throw new Error(`--rounds x --seconds is ${rounds * seconds} s per side; keep it to 600`);
  const warmRows = 10 * pool.length;
  const rubric = getRubric(values.reward!);
  const batches = Array.from({ length: Math.ceil(pool.length / batch) }, (_, i) => pool.slice(i * batch, (i + 1) * batch));

  // In-process: the function the server runs per request, on this one thread, over the same batches.
  const inProcess = (limit: { seconds?: number; rows?: number }) => {
    let rewards = 0;
    const t0 = performance.now();
    const c0 = cpuSeconds();
    const more = () => (limit.rows !== undefined ? rewards < limit.rows : performance.now() - t0 < limit.seconds! * 1000);
    for (let i = 0; more(); i++) rewards += scoreRows(rubric, batches[i % batches.length], 1_000_000).results.length;
    return { rewards, wall: (performance.now() - t0) / 1000, cpu: cpuSeconds() - c0 };
  };
  inProcess({ rows: warmRows });

  const server = await ServerProcess.start(values.reward!, threads);
  if (server.ready !== threads) process.stderr.write(`warning: ${server.ready} of ${threads} scoring threads started\n`);
  const agent = new Agent({ keepAlive: true, maxSockets: clients });
  try {
    const url = new URL(server.url);
    const bodies = batches.map((b) => Buffer.from(JSON.stringify(b)));
    const latencies: number[] = [];
    let failures = 0;
    /** Every client sends its next request as soon as it has the answer to the last, until the limit. */
    const load = async (limit: { seconds?: number; rows?: number }, timed: boolean) => {
      let rewards = 0;
      let sent = 0;
      const t0 = performance.now();
      const more = () => (limit.rows !== undefined ? sent * batch < limit.rows : performance.now() - t0 < limit.seconds! * 1000);
      await Promise.all(
        Array.from({ length: clients }, async (_, c) => {
          for (let i = c; more(); i += clients) {
            sent++;
            const t = performance.now();
            const res = await post(agent, url, bodies[i % bodies.length]);
            const json = JSON.parse(res.text) as { results?: unknown[] };
            if (!timed) continue;
            latencies.push(performance.now() - t);
            if (res.status === 200 && json.results) rewards += json.results.length;
            else failures++;
          }
        }),
      );
      return { rewards, wall: (performance.now() - t0) / 1000 };
    };
    await load({ rows: warmRows * Math.max(1, threads) }, false);

    const local = { rewards: 0, wall: 0, cpu: 0 };
    const http = { rewards: 0, wall: 0, serverCpu: 0, clientCpu: 0 };
    const shares: number[] = [];
    for (let r = 0; r < rounds; r++) {
      const l = inProcess({ seconds });
      local.rewards += l.rewards;
      local.wall += l.wall;
      local.cpu += l.cpu;
      const serverCpu0 = await server.cpu();
      const clientCpu0 = cpuSeconds();
      const h = await load({ seconds }, true);
      http.clientCpu += cpuSeconds() - clientCpu0;
      http.serverCpu += (await server.cpu()) - serverCpu0;
      http.rewards += h.rewards;
      http.wall += h.wall;
      shares.push(h.rewards / h.wall / (l.rewards / l.wall));
    }

    const localRate = local.rewards / local.wall;
    const localPerCpu = local.rewards / local.cpu;
    const httpRate = http.rewards / http.wall;
    const httpPerCpu = http.rewards / http.serverCpu;
    const httpPerCpuAll = http.rewards / (http.serverCpu + http.clientCpu);
    latencies.sort((a, b) => a - b);
    const n = (v: number) => v.toFixed(0).padStart(6);
    const pct = (share: number) => `${(100 * share).toFixed(0)}%`;
    const f = (v: number) => v.toFixed(1);
    const serverSide = threads === 0 ? 'HTTP thread scoring itself' : `HTTP thread + ${threads} scoring thread${threads === 1 ? '' : 's'}`;
    process.stdout.write(
      [
        `canvasgym server load test: ${clients} clients x ${batch} rows per request, ${rounds} x ${seconds} s each side, reward ${values.reward}, 127.0.0.1; ${availableParallelism()} cores, load average ${loadavg()[0].toFixed(1)}`,
        `in-process (1 thread): ${n(localRate)} rewards/s using ${(local.cpu / local.wall).toFixed(2)} cores; ${n(localPerCpu)} rewards per CPU-second`,
        `over HTTP (${serverSide}): ${n(httpRate)} rewards/s = ${pct(httpRate / localRate)} of in-process (rounds: ${shares.map(pct).join(', ')}); server used ${(http.serverCpu / http.wall).toFixed(2)} cores, clients (1 thread) ${(http.clientCpu / http.wall).toFixed(2)}`,
        `  per CPU-second: ${n(httpPerCpu)} rewards per server CPU-second = ${pct(httpPerCpu / localPerCpu)} of in-process; ${n(httpPerCpuAll)} counting the clients' CPU too = ${pct(httpPerCpuAll / localPerCpu)}`,
        `  ${latencies.length} requests, ${failures} failed; latency per request: p50 ${f(percentile(latencies, 50))} ms, p90 ${f(percentile(latencies, 90))} ms, p99 ${f(percentile(latencies, 99))} ms`,
      ].join('\n') + '\n',
    );
  } finally {
    agent.destroy();
    server.stop();
  }
}

if (process.env[SERVER_ROLE]) await serve();
else await main();
