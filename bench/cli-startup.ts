// How long the command line takes to start: `canvasgym --help` and a few commands' help, each in a fresh Node
// process, from the compiled package (dist/, what an installed canvasgym runs) and from the sources through tsx (what
// a checkout runs while dist/ is older than src/). Each figure is the median and the fastest of --runs spawns, wall
// clock, with the machine's load average beside them: on a shared machine the load, not the code, sets most of it.
// Needs a current build (`npm run build`).
//   npx tsx bench/cli-startup.ts [--runs 7]
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '7' } } });
const runs = Number(values.runs);
if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs must be a positive integer, got ${values.runs}`);

const root = fileURLToPath(new URL('..', import.meta.url));
const compiled = new URL('../dist/cli/main.js', import.meta.url);
if (!existsSync(compiled)) throw new Error('dist/cli/main.js is missing: run `npm run build` first');
const sources = new URL('../src/cli/main.ts', import.meta.url);
const tsx = import.meta.resolve('tsx/esm/api');

// Each form loads main the way bin/canvasgym.js does, without its check of which form is current.
const FORMS = {
  compiled: (args: string[]) => `import(${JSON.stringify(compiled.href)}).then((m) => m.main(${JSON.stringify(['node', 'canvasgym', ...args])}))`,
  tsx: (args: string[]) =>
    `import(${JSON.stringify(tsx)}).then((t) => { t.register(); return import(${JSON.stringify(sources.href)}); }).then((m) => m.main(${JSON.stringify(['node', 'canvasgym', ...args])}))`,
};
const COMMANDS = [['--help'], ['--version'], ['score', '--help'], ['run', '--help']];

function seconds(code: string): number {
  const started = performance.now();
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], { cwd: root, encoding: 'utf8' });
  const s = (performance.now() - started) / 1000;
  if (r.status !== 0) throw new Error(`exit code ${r.status}: ${r.stderr}`);
  return s;
}

const baseline = () => seconds('');
const load = () => loadavg()[0].toFixed(2);
console.log(`canvasgym start-up, ${runs} runs each: median (fastest) seconds; ${availableParallelism()} cores, load average ${load()} at the start`);
const bare = Array.from({ length: runs }, baseline).sort((a, b) => a - b);
console.log(`  ${'node -e "" (no canvasgym)'.padEnd(30)} ${bare[runs >> 1].toFixed(3)} (${bare[0].toFixed(3)})`);
for (const args of COMMANDS) {
  const cells = Object.entries(FORMS).map(([form, code]) => {
    const t = Array.from({ length: runs }, () => seconds(code(args))).sort((a, b) => a - b);
    return `${form} ${t[runs >> 1].toFixed(3)} (${t[0].toFixed(3)})`;
  });
  console.log(`  ${`canvasgym ${args.join(' ')}`.padEnd(30)} ${cells.join('   ')}`);
}
console.log(`load average ${load()} at the end`);
