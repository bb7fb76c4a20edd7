// Reward speed, whole process: `canvasgym score` (compiled dist/, no tsx) against the seed's Python reward.py (run by
// python/seed_reference_score.py, which imports it from ../shared/seed/reference) on the same generated JSONL rows,
// each from process start to the last row written, side by side with the ratio. Wall-clock and CPU seconds (user +
// system of the process and its threads) are both printed, with the load average before and after: on a shared
// machine the CPU figure is the steadier one. Also checks that the seed preset gives Python's reward on every row.
//   npx tsx bench/reward.ts [--n 40000] [--seed 1] [--rounds 3] [--presets seed,strong,task]
// Needs `npm run build` first: it runs dist/cli/main.js directly, whatever the sources' dates.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { generateCorpus } from '../src/diagram/tasks/corpus.ts';
import { RUBRIC_NAMES } from '../src/diagram/reward/presets.ts';
import { DEFAULT_THREADS } from '../src/settings.ts';

const { values } = parseArgs({
  options: {
    n: { type: 'string', default: '40000' },
    seed: { type: 'string', default: '1' },
    rounds: { type: 'string', default: '3' },
    presets: { type: 'string', default: RUBRIC_NAMES.join(',') },
  },
});
const n = Number(values.n);
const seed = Number(values.seed);
const rounds = Number(values.rounds);
const presets = values.presets.split(',').filter(Boolean);
const unknown = presets.filter((p) => !RUBRIC_NAMES.includes(p));
if (!Number.isInteger(n) || n < 1 || !Number.isInteger(seed) || !Number.isInteger(rounds) || rounds < 1 || unknown.length > 0) {
  console.error(`usage: npx tsx bench/reward.ts [--n N>0] [--seed INT] [--rounds R>0] [--presets ${RUBRIC_NAMES.join(',')}]` +
    `${unknown.length ? ` (unknown preset: ${unknown.join(', ')})` : ''}`);
  process.exit(2);
}

const root = fileURLToPath(new URL('..', import.meta.url));
const MAIN = join(root, 'dist/cli/main.js');
const SCORER = join(root, 'python/seed_reference_score.py');
if (!existsSync(MAIN)) {
  console.error('bench/reward.ts: dist/cli/main.js is missing: run `npm run build` first');
  process.exit(2);
}

// Runs a command with stdin and stdout redirected to files (Python reads and writes them; canvasgym score takes
// --in and --out) and reports its wall-clock and CPU seconds (the child's
// rusage, threads included): Node has no rusage of a finished child.
const TIMER = `
import json, resource, subprocess, sys, time
with open(sys.argv[1], "rb") as i, open(sys.argv[2], "wb") as o:
    t = time.perf_counter()
    p = subprocess.run(sys.argv[3:], stdin=i, stdout=o, stderr=subprocess.PIPE)
    wall = time.perf_counter() - t
u = resource.getrusage(resource.RUSAGE_CHILDREN)
if p.returncode != 0:
    sys.exit(p.stderr.decode(errors="replace"))
print(json.dumps({"wall": wall, "cpu": u.ru_utime + u.ru_stime, "stderr": p.stderr.decode(errors="replace")}))
`;

interface Run {
  wall: number;
  cpu: number;
  /** The threads `canvasgym score` said it scored on (its last line: "... on N threads ..."; none said: 1). */
  threads: number;
}

function timed(input: string, output: string, command: string[]): Run {
  const r = spawnSync('python3', ['-c', TIMER, input, output, ...command], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${command.join(' ')} failed: ${r.stderr || r.stdout}`);
  const { wall, cpu, stderr } = JSON.parse(r.stdout) as { wall: number; cpu: number; stderr: string };
  return { wall, cpu, threads: Number(/ on (\d+) threads/.exec(stderr)?.[1] ?? 1) };
}

/** Best wall and best CPU seconds of each command over `rounds` rounds, the commands taking turns within a round: a
 *  change of the machine's load then falls on all of them alike. */
function bestInterleaved(runs: { input: string; output: string; command: string[] }[]): Run[] {
  const best = runs.map(() => ({ wall: Infinity, cpu: Infinity, threads: 0 }));
  for (let r = 0; r < rounds; r++) {
    runs.forEach(({ input, output, command }, k) => {
      const run = timed(input, output, command);
      best[k].wall = Math.min(best[k].wall, run.wall);
      best[k].cpu = Math.min(best[k].cpu, run.cpu);
      best[k].threads = Math.max(best[k].threads, run.threads);
    });
  }
  return best;
}

const dir = mkdtempSync(join(tmpdir(), 'canvasgym-bench-reward-'));
try {
  const rows = join(dir, 'rows.jsonl');
  const items = generateCorpus({ n, seed });
  writeFileSync(rows, items.map((it) => JSON.stringify({ prompt: it.prompt, completion: it.completion, ...(it.spec ? { spec: it.spec } : {}) })).join('\n') + '\n');
  const mb = readFileSync(rows).length / 1e6;
  const loadBefore = loadavg().map((l) => l.toFixed(2)).join(' ');

  const pyOut = join(dir, 'python.jsonl');
  const node = process.execPath;
  // dist's main, without bin/canvasgym.js's check of the sources' dates (which would run them through tsx).
  const launch = `import(${JSON.stringify(MAIN)}).then((m) => m.main([process.argv[0], 'canvasgym', ...process.argv.slice(1)]))`;
  // One scoring thread (Python's single process, like for like in CPU) and score's default threads (the user's figure).
  const threadCounts = [...new Set([1, DEFAULT_THREADS])];
  const cells = presets.flatMap((preset) => threadCounts.map((threads) => ({ preset, threads, out: join(dir, `${preset}-${threads}.jsonl`) })));
  const [python, ...runs] = bestInterleaved([
    { input: rows, output: pyOut, command: ['python3', SCORER] },
    ...cells.map(({ preset, threads, out }) => ({
      input: '/dev/null',
      output: '/dev/null',
      command: [node, '-e', launch, 'score', '--reward', preset, '--in', rows, '--out', out, ...(threads === DEFAULT_THREADS ? [] : ['--threads', String(threads)])],
    })),
  ]);
  const pyRewards = readFileSync(pyOut, 'utf8').trimEnd().split('\n').map(Number);
  const results = cells.map(({ preset, threads, out }, k) => {
    const scored = readFileSync(out, 'utf8').trimEnd().split('\n').map((l) => (JSON.parse(l) as { reward: number }).reward);
    const agreement = preset === 'seed' ? `${scored.filter((r, i) => Object.is(r, pyRewards[i])).length}/${n}` : undefined;
    return { preset, threads, run: runs[k], agreement };
  });
  const loadAfter = loadavg().map((l) => l.toFixed(2)).join(' ');

  console.log(`${n} rows (${mb.toFixed(1)} MB JSONL, corpus seed ${seed}), whole process, best of ${rounds} rounds (the scorers take turns in each); load ${loadBefore} before, ${loadAfter} after\n`);
  const row = (cells: (string | number)[]) => `| ${cells.join(' | ')} |`;
  console.log(row(['scorer', 'wall s', 'CPU s', 'rows/s (wall)', 'x Python (wall)', 'x Python (CPU)', 'same reward as Python']));
  console.log(row(['---', '---:', '---:', '---:', '---:', '---:', '---:']));
  console.log(row(['python3 reward.py (seed_reference_score.py)', python.wall.toFixed(2), python.cpu.toFixed(2), Math.round(n / python.wall), '1.00', '1.00', '']));
  for (const { preset, threads, run, agreement } of results) {
    console.log(row([`canvasgym score --reward ${preset}${threads === DEFAULT_THREADS ? ` (default: at most ${threads} threads; used ${run.threads})` : ` --threads ${threads}`}`, run.wall.toFixed(2), run.cpu.toFixed(2), Math.round(n / run.wall),
      (python.wall / run.wall).toFixed(2), (python.cpu / run.cpu).toFixed(2), agreement ?? '']));
  }
  console.log('\nx Python: Python\'s seconds over canvasgym\'s (above 1: canvasgym is faster).');
} finally {
  rmSync(dir, { recursive: true, force: true });
}
