// Speed of the student GPT on both engine backends (native, wasm) against PyTorch CPU on the same configurations, in one
// run, with the native engine's GEMMs in its own kernels (the default) and, where OpenBLAS is installed, split between
// them and OpenBLAS by shape ('native+blas', CANVASGYM_NATIVE_GEMM=auto): training tokens/s (forward + backward + AdamW, batch 16 x 256) and KV-cached sampling tokens/s (8 and 64
// sequences, 200 new tokens after a 16-token prompt, the fastest of 5 runs). PyTorch runs python/bench_model.py with
// /usr/bin/python3 (Debian's python3-torch) at 1 and 2 threads; the better figure counts, on every side.
//   npm run bench:model -- [--configs small,big,sft,sft-rotary] [--backends native,native+blas,wasm] [--steps 10] [--threads 1,2] [--no-torch] [--profile]
// --profile times every kernel call of training steps instead (first backend and thread count only) and prints where a
// step goes.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { GPT, ROPE_THETA, type GPTConfig } from '../src/model/gpt.ts';
import type { Backend } from '../src/model/kernels.ts';
import { loadNative, type GemmMode, type NativeAddon } from '../src/model/kernels-native.ts';
import { generate } from '../src/model/sampler.ts';

const CONFIGS: Record<string, GPTConfig & { batch?: number; seq?: number }> = {
  small: { vocabSize: 512, nCtx: 256, nEmbd: 128, nLayer: 4, nHead: 4 },
  big: { vocabSize: 512, nCtx: 512, nEmbd: 256, nLayer: 6, nHead: 8 },
  // the default SFT stage's shape: the default preset with its 2,048-token vocabulary, 2,048 padded tokens a step
  sft: { vocabSize: 2048, nCtx: 512, nEmbd: 128, nLayer: 4, nHead: 4, batch: 4, seq: 512 },
  // the same with rotary positions (`canvasgym sft --positions rotary`)
  'sft-rotary': { vocabSize: 2048, nCtx: 512, nEmbd: 128, nLayer: 4, nHead: 4, batch: 4, seq: 512, positions: 'rotary' },
};
const PROMPT = 16, NEW_TOKENS = 200, SAMPLE_SEQS = [8, 64];
/** Sampling runs per figure, the fastest counting: a run of 8 sequences lasts a tenth of a second, and on shared cores
 *  single runs of it moved by a third between repeats. */
const SAMPLE_RUNS = 5;
const PYTHON = '/usr/bin/python3';
/** intra-op threads x OpenBLAS threads. For 2 threads the engine notes found 1 x 2 best: 2 intra-op threads with a
 *  multi-threaded OpenBLAS oversubscribe the 2 cores (3-10x slower). */
const TORCH_SETTINGS = [{ threads: 1, blas: 1 }, { threads: 1, blas: 2 }];

interface Figures {
  train: number;
  /** Training tokens per CPU-second of the process: independent of other load, comparable at 1 thread. */
  trainCpu: number;
  sample: Record<number, number>;
  label: string;
  /** canvasgym's training steps (ms) in the order they ran, interleaved with the other backend's of the same run. */
  stepMs?: number[];
}

/** What a column measures: a backend, and for native where its GEMMs run. */
const SIDES = { native: { backend: 'native', gemm: 'own' }, 'native+blas': { backend: 'native', gemm: 'auto' }, wasm: { backend: 'wasm' } } as const satisfies Record<string, { backend: Backend; gemm?: GemmMode }>;
type Side = keyof typeof SIDES;
const SIDE_NAMES = Object.keys(SIDES) as Side[];
let addon: NativeAddon | undefined;
/** Before a side's work: the native GEMMs where that side wants them (the addon's mode is one for the process). */
const enter = (side: Side): void => {
  const gemm = (SIDES[side] as { gemm?: GemmMode }).gemm;
  if (gemm && addon) addon.setGemm(gemm);
};

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function randomTokens(n: number, V: number, seed: number): Int32Array {
  let s = seed >>> 0;
  return Int32Array.from({ length: n }, () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s % V;
  });
}

/** Batch of a config: 16 x 256 unless it says otherwise. */
const shape = (cfg: { batch?: number; seq?: number }): [number, number] => [cfg.batch ?? 16, cfg.seq ?? 256];

/** One training step as the trainers take it: forward, backward, gradient clipping, AdamW. */
function trainStep(model: GPT, tokens: Int32Array, targets: Int32Array, coef: Float32Array, B: number, T: number): void {
  model.zeroGrad();
  model.forward(tokens, targets, B, T);
  model.backward(coef);
  model.clipGradNorm(1);
  model.optimizer.update({ lr: 1e-4 });
}

/**
 * Every backend at one thread count, interleaved: a training step of each in turn, then each sampling run of each in
 * turn, so that both sides of a ratio see the same load (the cores are shared, and a run of one backend after the
 * other's compared two moments of other jobs' load).
 */
async function benchCanvasgym(cfg: GPTConfig & { batch?: number; seq?: number }, steps: number, threads: number, backends: Side[]): Promise<Map<Side, Figures>> {
  const [BATCH, SEQ] = shape(cfg);
  const models: GPT[] = [];
  try {
    for (const side of backends) models.push(await GPT.create(cfg, { seed: 0, threads, backend: SIDES[side].backend }));
    const tokens = randomTokens(BATCH * SEQ, cfg.vocabSize, 1), targets = randomTokens(BATCH * SEQ, cfg.vocabSize, 2);
    const coef = new Float32Array(BATCH * SEQ).fill(-1 / (BATCH * SEQ));
    const times = models.map((): number[] => []), cpu = models.map((): number[] => []);
    for (let step = 0; step < steps + 2; step++) {
      models.forEach((model, m) => {
        enter(backends[m]);
        const t0 = performance.now(), c0 = process.cpuUsage();
        trainStep(model, tokens, targets, coef, BATCH, SEQ);
        if (step >= 2) {
          times[m].push(performance.now() - t0);
          const c = process.cpuUsage(c0);
          cpu[m].push((c.user + c.system) / 1000);
        }
      });
    }
    const sample = models.map((): Record<number, number> => ({}));
    for (const S of SAMPLE_SEQS) {
      const prompts = Array.from({ length: S }, (_, i) => randomTokens(PROMPT, cfg.vocabSize, 10 + i));
      const best = models.map(() => Infinity);
      for (let rep = 0; rep < SAMPLE_RUNS; rep++) {
        for (const [m, model] of models.entries()) {
          enter(backends[m]);
          const t0 = performance.now();
          await generate(model, prompts, { maxNewTokens: NEW_TOKENS, temperature: 1, seed: rep, stopTokens: [] });
          best[m] = Math.min(best[m], performance.now() - t0);
        }
      }
      best.forEach((ms, m) => (sample[m][S] = (S * NEW_TOKENS) / (ms / 1000)));
    }
    const label = `${threads} thread${threads > 1 ? 's' : ''}`;
    return new Map(backends.map((b, m) => [b, {
      train: (BATCH * SEQ) / (median(times[m]) / 1000), trainCpu: (BATCH * SEQ) / (median(cpu[m]) / 1000), sample: sample[m], label,
      stepMs: times[m],
    }]));
  } finally {
    for (const model of models.reverse()) await model.dispose();
  }
}

/** Per label: the median over steps of its time in a step; 'other' is the step's time outside kernel calls. */
async function profileCanvasgym(cfg: GPTConfig & { batch?: number; seq?: number }, steps: number, threads: number, backend: Side): Promise<void> {
  const [BATCH, SEQ] = shape(cfg);
  enter(backend);
  const model = await GPT.create(cfg, { seed: 0, threads, backend: SIDES[backend].backend });
  try {
    const tokens = randomTokens(BATCH * SEQ, cfg.vocabSize, 1), targets = randomTokens(BATCH * SEQ, cfg.vocabSize, 2);
    const coef = new Float32Array(BATCH * SEQ).fill(-1 / (BATCH * SEQ));
    const perLabel = new Map<string, number[]>();
    const totals: number[] = [], cpu: number[] = [];
    for (let step = 0; step < steps + 2; step++) {
      const profile = model.profile(true)!;
      const t0 = performance.now(), c0 = process.cpuUsage();
      trainStep(model, tokens, targets, coef, BATCH, SEQ);
      const total = performance.now() - t0, c = process.cpuUsage(c0);
      model.profile(false);
      if (step < 2) continue;
      totals.push(total);
      cpu.push((c.user + c.system) / 1000);
      let inKernels = 0;
      for (const [label, { ms }] of profile) {
        inKernels += ms;
        perLabel.set(label, [...(perLabel.get(label) ?? []), ms]);
      }
      perLabel.set('other (JS, copies, zeroGrad)', [...(perLabel.get('other (JS, copies, zeroGrad)') ?? []), total - inKernels]);
    }
    const step = median(totals);
    // Labels are wall time; the CPU time of a step is the figure to compare between runs while other jobs share the cores.
    console.log(`  profile, ${backend}, ${threads} thread(s): median step ${step.toFixed(1)} ms (${((BATCH * SEQ) / step * 1000).toFixed(0)} tok/s), ` +
      `CPU ${median(cpu).toFixed(1)} ms (${((BATCH * SEQ) / median(cpu) * 1000).toFixed(0)} tok per CPU-s)`);
    const rows = [...perLabel].map(([label, ms]) => [label, median(ms)] as const).sort((a, b) => b[1] - a[1]);
    for (const [label, ms] of rows) console.log(`    ${label.padEnd(32)} ${ms.toFixed(2).padStart(8)} ms ${(100 * ms / step).toFixed(1).padStart(5)}%`);
  } finally {
    await model.dispose();
  }
}

function benchTorch(cfg: GPTConfig & { batch?: number; seq?: number }, steps: number): Figures | string {
  if (!existsSync(PYTHON)) return `${PYTHON} not found`;
  const [BATCH, SEQ] = shape(cfg);
  const script = fileURLToPath(new URL('../python/bench_model.py', import.meta.url));
  const runs: Figures[] = [];
  for (const s of TORCH_SETTINGS) {
    const res = spawnSync(PYTHON, [script, '--vocab', `${cfg.vocabSize}`, '--ctx', `${cfg.nCtx}`, '--embd', `${cfg.nEmbd}`,
      '--layers', `${cfg.nLayer}`, '--heads', `${cfg.nHead}`, '--batch', `${BATCH}`, '--seq', `${SEQ}`, '--steps', `${steps}`,
      '--threads', `${s.threads}`, '--sample-seqs', SAMPLE_SEQS.join(','), '--prompt-len', `${PROMPT}`, '--new-tokens', `${NEW_TOKENS}`,
      '--sample-runs', `${SAMPLE_RUNS}`, ...(cfg.positions === 'rotary' ? ['--rope-theta', `${cfg.ropeTheta ?? ROPE_THETA}`] : [])],
    { encoding: 'utf8', env: { ...process.env, OPENBLAS_NUM_THREADS: `${s.blas}`, OMP_NUM_THREADS: `${s.blas}` } });
    if (res.status !== 0) return `python3 failed: ${(res.stderr || res.error?.message || '').trim().split('\n').pop()}`;
    const out = JSON.parse(res.stdout) as { trainTokensPerSec: number; trainTokensPerCpuSec: number; sampleTokensPerSec: Record<string, number> };
    const fig = { train: out.trainTokensPerSec, trainCpu: out.trainTokensPerCpuSec, sample: Object.fromEntries(SAMPLE_SEQS.map((n) => [n, out.sampleTokensPerSec[n]])), label: `${s.threads}x${s.blas}` };
    console.log(`  pytorch ${fig.label} (intra-op x OpenBLAS threads): train ${fig.train.toFixed(0)} tok/s (${fig.trainCpu.toFixed(0)} per CPU-s), sample ${SAMPLE_SEQS.map((n) => fig.sample[n].toFixed(0)).join(' / ')} tok/s`);
    runs.push(fig);
  }
  return bestOf(runs);
}

/** The best figure of each metric over thread settings; trainCpu stays the first (1-thread) run's. */
function bestOf(runs: Figures[]): Figures {
  return {
    train: Math.max(...runs.map((r) => r.train)),
    trainCpu: runs[0].trainCpu,
    sample: Object.fromEntries(SAMPLE_SEQS.map((n) => [n, Math.max(...runs.map((r) => r.sample[n]))])),
    label: 'best of ' + runs.map((r) => r.label).join(', '),
  };
}

/**
 * Training speed of a over b, two backends' figures of one interleaved run: the median, over the steps, of b's step
 * time over that of a's step next to it. Other jobs' load comes in bursts of a second or less (one step's ratio moved
 * between 1.4x and 2.5x within a run), and a burst then slows both sides of one pair instead of one side's median.
 */
function trainRatio(a: Figures, b: Figures): number {
  return median(a.stepMs!.map((ms, i) => b.stepMs![i] / ms));
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      configs: { type: 'string', default: 'small,big' },
      backends: { type: 'string', default: SIDE_NAMES.join(',') },
      steps: { type: 'string', default: '10' },
      threads: { type: 'string', default: '1,2' },
      'no-torch': { type: 'boolean', default: false },
      profile: { type: 'boolean', default: false },
    },
  });
  const steps = Number(values.steps);
  if (!Number.isInteger(steps) || steps < 1) throw new Error(`--steps must be a positive integer, got ${values.steps}`);
  const threadList = values.threads.split(',').map(Number);
  let backends = values.backends.split(',') as Side[];
  for (const b of backends) if (!SIDE_NAMES.includes(b)) throw new Error(`unknown backend '${b}' (expected ${SIDE_NAMES.join(', ')})`);
  const native = loadNative();
  if ('error' in native) {
    if (backends.some((b) => SIDES[b].backend === 'native')) console.log(`native backend skipped: ${native.error}`);
    backends = backends.filter((b) => SIDES[b].backend !== 'native');
  } else {
    addon = native.addon;
    if (backends.includes('native+blas') && addon.setGemm('auto') !== 'auto') {
      console.log(`native+blas skipped: ${addon.info().blasMissing}`);
      backends = backends.filter((b) => b !== 'native+blas');
    }
  }
  const rows: string[] = [];
  for (const name of values.configs.split(',')) {
    const cfg = CONFIGS[name];
    if (!cfg) throw new Error(`unknown config '${name}' (expected ${Object.keys(CONFIGS).join(', ')})`);
    // The cores are shared: a load average above the core count means every figure below is depressed.
    console.log(`${name}: ${JSON.stringify(cfg)}, batch ${shape(cfg).join('x')} (load average ${loadavg()[0].toFixed(1)})`);
    if (values.profile) {
      await profileCanvasgym(cfg, steps, threadList[0], backends[0]);
      continue;
    }
    const best: Partial<Record<Side, Figures>> = {}, oneThread: Partial<Record<Side, Figures>> = {};
    const runs = new Map<Side, Figures[]>(backends.map((b) => [b, []]));
    for (const t of threadList) {
      const byThreads = new Map<Side, Figures>();
      for (const [backend, f] of await benchCanvasgym(cfg, steps, t, backends)) {
        runs.get(backend)!.push(f);
        if (t === 1) oneThread[backend] = f;
        console.log(`  ${backend} ${f.label}: train ${f.train.toFixed(0)} tok/s (${f.trainCpu.toFixed(0)} per CPU-s), sample ${SAMPLE_SEQS.map((n) => f.sample[n].toFixed(0)).join(' / ')} tok/s`);
        byThreads.set(backend, f);
      }
      const n = byThreads.get('native'), w = byThreads.get('wasm'), nb = byThreads.get('native+blas');
      if (n && w) console.log(`  native / wasm at ${n.label}, step by step: ${n.stepMs!.map((ms, i) => (w.stepMs![i] / ms).toFixed(2)).join(' ')} (median ${trainRatio(n, w).toFixed(2)}x)`);
      if (n && nb) console.log(`  native / native+blas at ${n.label}, step by step: ${n.stepMs!.map((ms, i) => (nb.stepMs![i] / ms).toFixed(2)).join(' ')} (median ${trainRatio(n, nb).toFixed(2)}x)`);
    }
    for (const [backend, r] of runs) best[backend] = bestOf(r);
    // Training: both backends at the thread setting where native (else wasm) was fastest, from the same run.
    const lead = runs.get('native') ?? runs.get('wasm')!;
    const at = lead.indexOf(lead.reduce((a, b) => (b.train > a.train ? b : a)));
    const train: Partial<Record<Side, Figures>> = Object.fromEntries([...runs].map(([b, r]) => [b, r[at]]));
    const torch = values['no-torch'] ? 'skipped' : benchTorch(cfg, steps);
    const t = typeof torch === 'string' ? undefined : torch;
    if (typeof torch === 'string') console.log(`  pytorch: ${torch}`);
    const ratio = (a: number | undefined, b: number | undefined): string => (a && b ? `${(a / b).toFixed(2)}x` : '-');
    const fig = (x: number | undefined): string => (x ? x.toFixed(0) : '-');
    const row = (label: string, get: (f: Figures) => number, src: Partial<Record<Side, Figures>>, torchFig: number | undefined, paired?: { nw?: number; nb?: number }): string => {
      const n = src.native ? get(src.native) : undefined, w = src.wasm ? get(src.wasm) : undefined;
      const b = src['native+blas'] ? get(src['native+blas']) : undefined;
      const nw = paired?.nw ? `${paired.nw.toFixed(2)}x` : ratio(n, w);
      const nb = paired?.nb ? `${paired.nb.toFixed(2)}x` : ratio(n, b);
      return `| ${name} | ${label} | ${fig(n)} | ${fig(b)} | ${fig(w)} | ${fig(torchFig)} | ${nb} | ${nw} | ${ratio(n, torchFig)} | ${ratio(w, torchFig)} |`;
    };
    const pair = (x: Side): number | undefined => (train.native && train[x] ? trainRatio(train.native, train[x]!) : undefined);
    rows.push(row(`train (${lead[at].label})`, (f) => f.train, train, t?.train, { nw: pair('wasm'), nb: pair('native+blas') }));
    if (oneThread.native || oneThread.wasm) rows.push(row('train per CPU-second, 1 thread', (f) => f.trainCpu, oneThread, t?.trainCpu));
    for (const n of SAMPLE_SEQS) rows.push(row(`sample ${n} seqs`, (f) => f.sample[n], best, t?.sample[n]));
  }
  console.log(`\n(load average ${loadavg()[0].toFixed(1)} at the end)`);
  console.log('| config | tokens/s | native | native+blas | wasm | pytorch | native / native+blas | native / wasm | native / pytorch | wasm / pytorch |\n|---|---|---|---|---|---|---|---|---|---|');
  console.log(rows.join('\n'));
}

await main();
