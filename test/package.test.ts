// canvasgym as a user gets it: `npm pack`, the tarball installed into an empty project, then the library used from a
// plain .mjs file and from TypeScript (type-checked against the installed declarations), and the installed
// `canvasgym` command running the quick pipeline. The consumer's lock file is this checkout's, less its development
// packages, so that the install takes what the checkout's own `npm ci` left in npm's cache (no network when it is
// there) and tests the versions the rest of the suite tests.
import { spawnSync, type SpawnSyncOptions } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string; dependencies: Record<string, string>; bin: Record<string, string>; engines: Record<string, string> };

function run(cmd: string, args: string[], opts: SpawnSyncOptions = {}): { stdout: string; stderr: string } {
  const r = spawnSync(cmd, args, { encoding: 'utf8', ...opts, env: { ...process.env, CANVASGYM_SKIP_NATIVE: '1', ...opts.env } });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status ?? r.error}\n${r.stdout}\n${r.stderr}`);
  return { stdout: String(r.stdout), stderr: String(r.stderr) };
}

/** Whether this process may hide OpenBLAS from a command (a mount namespace needs root). */
const CAN_HIDE_OPENBLAS = process.getuid?.() === 0 && spawnSync('unshare', ['-m', 'true']).status === 0;

/** dist/ as `npm run build` leaves it, rebuilt when a source is newer (the stamp is written last, as bin/ reads it). */
function buildIfStale(): void {
  const stamp = join(ROOT, 'dist', '.tsbuildinfo');
  const built = existsSync(stamp) ? statSync(stamp).mtimeMs : -1;
  const sources = readdirSync(join(ROOT, 'src'), { recursive: true, withFileTypes: true }).filter((f) => f.isFile());
  if (sources.some((f) => statSync(join(f.parentPath, f.name)).mtimeMs >= built)) run('npm', ['run', 'build'], { cwd: ROOT });
  for (const built of ['assembly/build/kernels.wasm', 'dist/tldraw-page/index.html']) {
    if (!existsSync(join(ROOT, built))) throw new Error(`${built} is missing: run \`npm install\` (its prepare step builds it)`);
  }
}

/** The consumer's package-lock.json: canvasgym from the tarball, and the runtime packages of this checkout's lock. */
function consumerLock(tarball: string): string {
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { dev?: boolean }> };
  const packages: Record<string, unknown> = {
    '': { name: 'consumer', dependencies: { canvasgym: tarball } },
    // npm ci links the bin and checks the engines from this entry, not from the tarball's package.json.
    'node_modules/canvasgym': { version: pkg.version, resolved: tarball, hasInstallScript: true, dependencies: pkg.dependencies, bin: pkg.bin, engines: pkg.engines },
  };
  for (const [path, entry] of Object.entries(lock.packages)) if (path && !entry.dev) packages[path] = entry;
  return JSON.stringify({ name: 'consumer', lockfileVersion: 3, requires: true, packages }, null, 2);
}

// The same uses in both files: tasks of a split, a completion scored with named components, one GRPO step of a tiny
// student that the script makes and saves itself.
const CONSUMER_MJS = `
import { conversationFor, diagramEnv, generateTasks, getRubric, GPT, grpoConfig, saveCheckpoint, SYSTEM_PROMPT, trainGrpo, trainTokenizer } from 'canvasgym';

const tasks = generateTasks({ split: 'train', n: 4, seed: 7 });
const task = tasks[0];
const names = task.spec.entities;
const completion = JSON.stringify({ actions: names.map((n, i) => ({ type: 'create_shape', id: n, shape: 'rectangle', x: 40 + 220 * i, y: 80, w: 180, h: 80, text: n })) });
const score = getRubric('task').score({ prompt: task.prompt, completion, spec: task.spec });

const tokenizer = trainTokenizer([...Array(20).fill(SYSTEM_PROMPT), ...tasks.map((t) => t.prompt), completion], { vocabSize: 600 });
const model = await GPT.create({ vocabSize: tokenizer.vocabSize, nCtx: 1024, nEmbd: 32, nLayer: 1, nHead: 2 }, { seed: 1, threads: 1 });
const init = process.argv[2] + '/init';
saveCheckpoint(init, { model, tokenizer });
await model.dispose();
const grpo = await trainGrpo(
  grpoConfig({ output_dir: process.argv[2] + '/grpo', init, max_steps: 1, num_generations: 2, generation_batch_size: 4, per_device_train_batch_size: 4, max_completion_length: 8, threads: 1 }),
  { env: diagramEnv, tasks },
);
console.log(JSON.stringify({ tasks: tasks.length, system: conversationFor(task.prompt)[0].role, reward: score.reward, components: score.components, steps: grpo.steps, finalDir: grpo.finalDir }));
`;

const CONSUMER_TS = `
import { conversationFor, diagramEnv, generateTasks, getRubric, GPT, grpoConfig, saveCheckpoint, SYSTEM_PROMPT, trainGrpo, trainTokenizer, type GRPOConfig, type GrpoResult, type Score, type Task } from 'canvasgym';

const tasks: Task[] = generateTasks({ split: 'train', n: 4, seed: 7 });
const task = tasks[0];
const names: string[] = task.spec.entities;
const completion = JSON.stringify({ actions: names.map((n, i) => ({ type: 'create_shape', id: n, shape: 'rectangle', x: 40 + 220 * i, y: 80, w: 180, h: 80, text: n })) });
const score: Score = getRubric('task').score({ prompt: task.prompt, completion, spec: task.spec });
// The declarations are real types, not any: a split that does not exist does not compile.
// @ts-expect-error 'dev' is not a split
const notASplit: Parameters<typeof generateTasks>[0]['split'] = 'dev';

const tokenizer = trainTokenizer([...Array(20).fill(SYSTEM_PROMPT), ...tasks.map((t) => t.prompt), completion], { vocabSize: 600 });
const model = await GPT.create({ vocabSize: tokenizer.vocabSize, nCtx: 1024, nEmbd: 32, nLayer: 1, nHead: 2 }, { seed: 1, threads: 1 });
const init = process.argv[2] + '/init';
saveCheckpoint(init, { model, tokenizer });
await model.dispose();
const config: GRPOConfig = grpoConfig({ output_dir: process.argv[2] + '/grpo', init, max_steps: 1, num_generations: 2, generation_batch_size: 4, per_device_train_batch_size: 4, max_completion_length: 8, threads: 1 });
const grpo: GrpoResult = await trainGrpo(config, { env: diagramEnv, tasks });
console.log(JSON.stringify({ tasks: tasks.length, system: conversationFor(task.prompt)[0].role, reward: score.reward, components: score.components, steps: grpo.steps, finalDir: grpo.finalDir }));
`;

describe('the npm package', () => {
  let work: string;
  let project: string;
  let packed: string[];
  let installLog: string;

  beforeAll(() => {
    buildIfStale();
    work = mkdtempSync(join(tmpdir(), 'canvasgym-package-'));
    // prepare (the whole build) already ran; packing must not redo it in the shared checkout.
    const { stdout } = run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], { cwd: ROOT });
    const [info] = JSON.parse(stdout) as { filename: string; files: { path: string }[] }[];
    packed = info.files.map((f) => f.path);
    project = join(work, 'consumer');
    mkdirSync(project);
    const tarball = `file:../${info.filename}`;
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module', dependencies: { canvasgym: tarball } }));
    writeFileSync(join(project, 'package-lock.json'), consumerLock(tarball));
    const install = run('npm', ['ci', '--prefer-offline', '--no-audit', '--no-fund', '--foreground-scripts'], { cwd: project });
    installLog = install.stdout + install.stderr;
  }, 300_000);

  // The installed project holds over 100 MB.
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('ships what running needs and nothing else, and its install step builds the native backend', () => {
    for (const file of ['dist/index.js', 'dist/index.d.ts', 'dist/cli/main.js', 'dist/model/workers.js', 'dist/tldraw-page/index.html', 'assembly/build/kernels.wasm', 'native/binding.gyp', 'native/src/kernels.cc', 'python/canvasgym_client/rewards.py', 'README.md']) {
      expect(packed).toContain(file);
    }
    // No sources, tests, benches or docs, nor this machine's build of the addon (the install step builds the user's).
    expect(packed.filter((f) => /^(src|test|bench|docs|native\/build)\/|\.tsbuildinfo$|__pycache__|^python\/(bench|gpt2|seed)/.test(f))).toEqual([]);
    // Skipped on request here (it is CI's checkout that must build it), but run: the hook is there.
    expect(installLog).toContain('native backend not built (CANVASGYM_SKIP_NATIVE=1)');
    expect(existsSync(join(project, 'node_modules', 'tsx'))).toBe(false);
  });

  // A machine without OpenBLAS, made by hiding Debian's OpenBLAS folders under empty mounts in a mount namespace of
  // the command's own (root only): the install step builds the addon with the compiler alone, and training runs on it.
  it.skipIf(!CAN_HIDE_OPENBLAS && process.env.CANVASGYM_REQUIRE_NATIVE !== '1')('builds the native addon from the tarball where OpenBLAS is not installed, and trains on it', () => {
    const hide = 'for d in /usr/lib/*/openblas-* /usr/include/*/openblas-*; do if [ -d "$d" ]; then mount -t tmpfs none "$d"; fi; done';
    const bin = join(project, 'node_modules', '.bin', 'canvasgym');
    const script = [
      'set -e',
      hide,
      'npm rebuild canvasgym --foreground-scripts',
      `"${bin}" sft --env arithmetic --preset tiny --num-tasks 20 --steps 2 --threads 1 --out "${join(work, 'sft-no-blas')}" --no-progress`,
    ].join('\n');
    const { stdout, stderr } = run('unshare', ['-m', 'sh', '-c', script], { cwd: project, env: { CANVASGYM_SKIP_NATIVE: '' } });
    expect(stdout + stderr).toMatch(/canvasgym: native backend built/);
    expect(stderr).toMatch(/canvasgym: model backend native \(\w+ kernels, own GEMMs \(no OpenBLAS: no libopenblas\.so\.0\)/);
    expect(existsSync(join(work, 'sft-no-blas', 'final', 'model.safetensors'))).toBe(true);
  }, 300_000);

  it('scores, makes tasks and trains a GRPO step from a plain .mjs file', () => {
    writeFileSync(join(project, 'use.mjs'), CONSUMER_MJS);
    const out = JSON.parse(run(process.execPath, ['use.mjs', join(work, 'mjs')], { cwd: project }).stdout);
    expect(out).toMatchObject({ tasks: 4, system: 'system', steps: 1 });
    // A box for every name and no arrow: the task reward's entities are whole, its edges none.
    expect(out.components.entities).toBe(1);
    expect(out.components.edges).toBe(0);
    expect(out.reward).toBeGreaterThan(0);
    expect(existsSync(join(out.finalDir, 'model.safetensors'))).toBe(true);
  }, 120_000);

  it('does the same from TypeScript, type-checked against the installed declarations', () => {
    writeFileSync(join(project, 'use.ts'), CONSUMER_TS);
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, outDir: 'out', typeRoots: [join(ROOT, 'node_modules', '@types')], types: ['node'] },
        files: ['use.ts'],
      }),
    );
    run(process.execPath, [TSC, '-p', 'tsconfig.json'], { cwd: project });
    const out = JSON.parse(run(process.execPath, [join('out', 'use.js'), join(work, 'ts')], { cwd: project }).stdout);
    expect(out).toMatchObject({ tasks: 4, system: 'system', steps: 1 });
    expect(out.components).toMatchObject({ entities: 1, edges: 0 });
  }, 120_000);

  it('runs `canvasgym run --preset quick` through the installed command, from compiled code', () => {
    const bin = join(project, 'node_modules', '.bin', 'canvasgym');
    expect(run(bin, ['--help'], { cwd: project }).stdout).toMatch(/^Usage: canvasgym/);
    const { stdout } = run(bin, ['run', '--preset', 'quick', '--runs-dir', join(work, 'runs'), '--no-progress'], { cwd: project });
    expect(stdout.trim().split('\n').at(-1)).toMatch(new RegExp(`^finished in [\\d.]+ min; report: ${join(work, 'runs', 'quick', 'report.html')}$`));
    expect(existsSync(join(work, 'runs', 'quick', 'grpo', 'final', 'model.safetensors'))).toBe(true);
  }, 300_000);
});
