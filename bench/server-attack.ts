// The server under a bounded denial-of-service attack: many slow clients (headers or bodies trickled a byte a second,
// reconnecting when dropped) plus clients sending /reward with an oversize spec, while a prober measures what a
// trainer sees: whether GET /health answers (a fresh connection each time) and the latency of a normal one-row
// /reward (keep-alive). The same probes run first without the attack, in the same process, for a baseline.
//   npx tsx bench/server-attack.ts [--seconds 10] [--slow 2000] [--oversize 4] [--entities 80000] [--reconnect-ms 0]
//                                  [--max-connections 256] [--threads <cores>]
// Three processes share the machine: the server (startServer, what `canvasgym serve` runs, default settings unless
// given), the attacker and the prober. On a shared machine the figures move with its load: the bench prints the load
// average beside them.
import { fork, type ChildProcess } from 'node:child_process';
import { Agent, request, type RequestOptions } from 'node:http';
import { connect, type Socket } from 'node:net';
import { availableParallelism, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { DEFAULT_CONFIG, startServer } from '../src/server/app.ts';
import { generateTasks } from '../src/diagram/tasks/generate.ts';

const ROLE = 'CANVASGYM_BENCH_ATTACK_ROLE';

interface Settings {
  seconds: number;
  slow: number;
  oversize: number;
  entities: number;
  reconnectMs: number;
  maxConnections: number;
  threads: number;
}

/** A full answer to a suite task, with its spec: what a trainer sends. */
function normalRow() {
  const t = generateTasks({ split: 'train', n: 1, seed: 7 })[0];
  const actions = [
    ...t.spec.entities.map((text, k) => ({ type: 'create_shape', id: `n${k}`, shape: 'rectangle', x: 40 + 240 * (k % 4), y: 40 + 120 * Math.floor(k / 4), w: 200, h: 60, text })),
    ...t.spec.edges.map(([a, b]) => ({ type: 'connect', from: `n${t.spec.entities.indexOf(a)}`, to: `n${t.spec.entities.indexOf(b)}` })),
  ];
  return { prompt: t.prompt, completion: JSON.stringify({ actions }), spec: t.spec };
}

/** One row asking for a chain of `n` entities (the S3 request), answered with a handful of shapes. */
function oversizeBody(n: number): Buffer {
  const entities = Array.from({ length: n }, (_, i) => `Entity ${i}`);
  const spec = { entities, edges: entities.slice(1).map((e, i) => [entities[i], e]) };
  const actions = entities.slice(0, 8).map((text, k) => ({ type: 'create_shape', id: `n${k}`, shape: 'rectangle', x: 40 + 240 * k, y: 40, w: 200, h: 60, text }));
  return Buffer.from(JSON.stringify([{ prompt: `Draw a chain: ${entities.slice(0, 20).join(', ')}, ...`, completion: JSON.stringify({ actions }), spec }]));
}

/** CPU-seconds this process has used, all its threads together. */
const cpuSeconds = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

const percentile = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : NaN);

function post(url: URL, path: string, body: Buffer, opts: RequestOptions = {}, timeoutMs = 60_000): Promise<{ status: number; ms: number }> {
  const t0 = performance.now();
  return new Promise((resolve) => {
    const req = request({ host: url.hostname, port: url.port, path, method: 'POST', headers: { 'content-type': 'application/json', 'content-length': body.length }, ...opts }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode!, ms: performance.now() - t0 }));
    });
    req.setTimeout(timeoutMs, () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve({ status: 0, ms: performance.now() - t0 }));
    req.end(body);
  });
}

function get(url: URL, path: string, timeoutMs: number): Promise<{ status: number; ms: number }> {
  const t0 = performance.now();
  return new Promise((resolve) => {
    const req = request({ host: url.hostname, port: url.port, path, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode!, ms: performance.now() - t0 }));
    });
    req.setTimeout(timeoutMs, () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve({ status: 0, ms: performance.now() - t0 }));
    req.end();
  });
}

// ---------------------------------------------------------------------------------------------------------------------

async function serve(s: Settings): Promise<void> {
  const srv = await startServer({ host: '127.0.0.1', port: 0, scoringThreads: s.threads, maxConnections: s.maxConnections });
  await srv.pool.warm();
  process.on('message', (m: string) => {
    if (m === 'cpu') process.send!({ cpu: cpuSeconds() });
    if (m === 'stop') void srv.close().then(() => process.exit(0));
  });
  process.send!({ url: srv.url, limits: srv.config });
}

interface AttackReport {
  opened: number;
  /** How the server ended the slow connections: by status of its answer, or 'closed' without one. */
  answered: Record<string, number>;
  oversize: Record<string, number>;
  bodyBytes: number;
  lifeP50: number;
  oversizeP50: number;
  cpu: number;
}

/** The attacker: keeps `slow` trickling connections open and `oversize` clients posting the oversize spec. */
async function attack(s: Settings & { url: string }): Promise<void> {
  const url = new URL(s.url);
  const stats = { opened: 0, answered: {} as Record<string, number>, lives: [] as number[], oversize: {} as Record<string, number>, oversizeMs: [] as number[] };
  let running = true;
  const cpu0 = cpuSeconds();
  const sockets = new Set<Socket>();
  const trickler = (k: number) => {
    if (!running) return;
    const t0 = performance.now();
    const socket = connect(Number(url.port), url.hostname);
    sockets.add(socket);
    stats.opened++;
    // Half send their headers a byte a second; half send whole headers, then a 100 kB body a byte a second.
    const head = k % 2 === 0 ? 'POST /reward HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ' : 'POST /reward HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n[';
    // Written before the connection is up: the bytes go out in order once it is.
    socket.write(head);
    const timer = setInterval(() => socket.write(' '), 1000);
    let status = 'closed';
    socket.once('data', (d: Buffer) => (status = d.toString('latin1', 9, 12)));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearInterval(timer);
      sockets.delete(socket);
      stats.answered[status] = (stats.answered[status] ?? 0) + 1;
      stats.lives.push(performance.now() - t0);
      if (running) setTimeout(() => trickler(k), s.reconnectMs);
    });
  };
  for (let k = 0; k < s.slow; k++) trickler(k);
  const body = oversizeBody(s.entities);
  const agent = new Agent({ keepAlive: true });
  const oversize = Array.from({ length: s.oversize }, async () => {
    while (running) {
      const r = await post(url, '/reward', body, { agent });
      stats.oversize[r.status] = (stats.oversize[r.status] ?? 0) + 1;
      stats.oversizeMs.push(r.ms);
    }
  });
  process.on('message', async (m: string) => {
    if (m !== 'stop') return;
    running = false;
    for (const socket of sockets) socket.destroy();
    await Promise.all(oversize);
    agent.destroy();
    stats.oversizeMs.sort((a, b) => a - b);
    stats.lives.sort((a, b) => a - b);
    const report: AttackReport = { opened: stats.opened, answered: stats.answered, oversize: stats.oversize, bodyBytes: body.length, lifeP50: percentile(stats.lives, 50), oversizeP50: percentile(stats.oversizeMs, 50), cpu: cpuSeconds() - cpu0 };
    process.send!(report);
  });
  process.send!({ started: true });
}

// ---------------------------------------------------------------------------------------------------------------------

function child(role: string, payload: object): ChildProcess {
  return fork(process.argv[1], [], { env: { ...process.env, [ROLE]: JSON.stringify({ role, ...payload }) }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
}

const message = <T>(c: ChildProcess) => new Promise<T>((resolve, reject) => {
  c.once('message', (m) => resolve(m as T));
  c.once('exit', (code) => reject(new Error(`a bench process (${c.spawnargs.length}) exited with ${code}`)));
});

interface Probe {
  health: number[];
  healthFailed: number;
  reward: number[];
  rewardFailed: number;
}

/** Probes for `seconds`: /health every 100 ms on a fresh connection, one-row /reward back to back on a kept one. */
async function probe(url: URL, seconds: number): Promise<Probe> {
  const p: Probe = { health: [], healthFailed: 0, reward: [], rewardFailed: 0 };
  const until = performance.now() + seconds * 1000;
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const body = Buffer.from(JSON.stringify([normalRow()]));
  const health = (async () => {
    const pending: Promise<void>[] = [];
    while (performance.now() < until) {
      pending.push(get(url, '/health', 2000).then((r) => (r.status === 200 ? void p.health.push(r.ms) : void p.healthFailed++)));
      await new Promise((r) => setTimeout(r, 100));
    }
    await Promise.all(pending);
  })();
  const reward = (async () => {
    while (performance.now() < until) {
      const r = await post(url, '/reward', body, { agent }, 5000);
      if (r.status === 200) p.reward.push(r.ms);
      else p.rewardFailed++;
    }
  })();
  await Promise.all([health, reward]);
  agent.destroy();
  p.health.sort((a, b) => a - b);
  p.reward.sort((a, b) => a - b);
  return p;
}

async function main() {
  const { values } = parseArgs({
    options: {
      seconds: { type: 'string', default: '10' },
      slow: { type: 'string', default: '2000' },
      oversize: { type: 'string', default: '4' },
      entities: { type: 'string', default: '80000' },
      'reconnect-ms': { type: 'string', default: '0' },
      'max-connections': { type: 'string', default: String(DEFAULT_CONFIG.maxConnections) },
      threads: { type: 'string', default: String(availableParallelism()) },
    },
  });
  const s: Settings = {
    seconds: Number(values.seconds),
    slow: Number(values.slow),
    oversize: Number(values.oversize),
    entities: Number(values.entities),
    reconnectMs: Number(values['reconnect-ms']),
    maxConnections: Number(values['max-connections']),
    threads: Number(values.threads),
  };
  const bounds: [keyof Settings, number, number][] = [['seconds', 1, 120], ['slow', 0, 10_000], ['oversize', 0, 64], ['entities', 1, 1_000_000], ['reconnectMs', 0, 10_000], ['maxConnections', 1, 100_000], ['threads', 0, 64]];
  for (const [k, lo, hi] of bounds) if (!Number.isFinite(s[k]) || s[k] < lo || s[k] > hi) throw new Error(`--${k} must be a number from ${lo} to ${hi}, got ${s[k]}`);

  const server = child('serve', s);
  const { url: base, limits } = await message<{ url: string; limits: typeof DEFAULT_CONFIG }>(server);
  const url = new URL(base);
  const load0 = loadavg()[0];
  try {
    const baseline = await probe(url, s.seconds);
    const serverCpu = () => {
      const answer = message<{ cpu: number }>(server);
      server.send('cpu');
      return answer.then((m) => m.cpu);
    };
    const attacker = child('attack', { ...s, url: base });
    await message(attacker);
    // Let the slow connections pile up to the cap before measuring.
    await new Promise((r) => setTimeout(r, 1000));
    const cpu0 = await serverCpu();
    const attacked = await probe(url, s.seconds);
    const serverCores = ((await serverCpu()) - cpu0) / s.seconds;
    const load1 = loadavg()[0];
    const report = message<AttackReport>(attacker);
    attacker.send('stop');
    const a = await report;
    attacker.kill();
    const h = (await (await fetch(base + '/health')).json()) as { connections: Record<string, number> };

    const f = (v: number) => (Number.isFinite(v) ? v.toFixed(1) : '-');
    const share = (p: Probe) => `${p.health.length}/${p.health.length + p.healthFailed} (${((100 * p.health.length) / Math.max(1, p.health.length + p.healthFailed)).toFixed(1)}%)`;
    const rows: [string, (p: Probe) => string][] = [
      ['/health answered (fresh connection every 100 ms, 2 s timeout)', share],
      ['/health latency p50 / p99 (ms)', (p) => `${f(percentile(p.health, 50))} / ${f(percentile(p.health, 99))}`],
      ['/reward, one normal row: requests ok / failed', (p) => `${p.reward.length} / ${p.rewardFailed}`],
      ['/reward latency p50 / p99 (ms)', (p) => `${f(percentile(p.reward, 50))} / ${f(percentile(p.reward, 99))}`],
    ];
    const w = Math.max(...rows.map(([k]) => k.length));
    const counts = (m: Record<string, number>) => Object.entries(m).map(([k, n]) => `${k}: ${n}`).join(', ');
    process.stdout.write(
      [
        `canvasgym server under attack: ${availableParallelism()} cores, load average ${load0.toFixed(1)} before, ${load1.toFixed(1)} at the end`,
        `server: max_connections=${limits.maxConnections} headers_timeout_s=${limits.headersTimeoutS} request_timeout_s=${limits.requestTimeoutS} scoring_threads=${limits.scoringThreads} max_body_bytes=${limits.maxBodyBytes}`,
        `attack: ${s.slow} slow connections (half trickling headers, half bodies, a byte a second, reconnecting ${s.reconnectMs} ms after a drop) + ${s.oversize} clients posting /reward with a ${s.entities}-entity chain spec (${(a.bodyBytes / 1e6).toFixed(1)} MB), ${s.seconds} s each phase`,
        `${''.padEnd(w)}  ${'baseline'.padEnd(22)}  under attack`,
        ...rows.map(([k, v]) => `${k.padEnd(w)}  ${v(baseline).padEnd(22)}  ${v(attacked)}`),
        `attacker: ${a.opened} slow connections opened, ended by the server with ${counts(a.answered)}; median life ${(a.lifeP50 / 1000).toFixed(1)} s`,
        `          oversize /reward answers ${counts(a.oversize)}, median ${(a.oversizeP50 / 1000).toFixed(2)} s`,
        `CPU under attack: server ${serverCores.toFixed(2)} cores, attacker ${(a.cpu / (s.seconds + 1)).toFixed(2)} cores`,
        `server connections: ${counts(h.connections)}`,
      ].join('\n') + '\n',
    );
  } finally {
    server.send('stop');
  }
}

const role = process.env[ROLE] ? (JSON.parse(process.env[ROLE]) as Settings & { role: string; url: string }) : undefined;
if (role?.role === 'serve') await serve(role);
else if (role?.role === 'attack') await attack(role);
else await main();
