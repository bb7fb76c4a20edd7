// Whether a freshly initialised student learns to copy within a training budget, per learning rate. Most of a diagram
// answer is names copied from the request, which a transformer does with induction heads (attend to where the current
// token stood before, predict what followed it). This bench trains the default student shape on copying alone: a span
// of 8 to `--span` random tokens out of `--pieces`, after random filler, then the span again; the loss is taken on the
// repeat after its first token, which nothing but copying predicts (chance is ln(pieces)). It prints the step at which
// the loss first falls below 0.5 nats, if it does. Spans of one fixed length (`--fixed`) can be copied from a fixed
// distance back, which needs no induction: the comparison shows which of the two the budget allows.
//   npx tsx bench/copy.ts [--steps 800] [--span 24] [--pieces 2000] [--filler 24] [--lrs 1e-3,3e-3] [--fixed]
//                         [--layers 4] [--heads 4] [--rows 16] [--every N] [--init gpt2|sinusoidal|induction]
//                         [--wpe-scale 0.028] [--gains '{"match":10,"copyWrite":0.3}']
// --init induction plants the copying circuit of src/model/induction-init.ts (--gains overrides its gains), sinusoidal
// only initialises the positions as sinusoids; --every N prints the loss every N steps.
import { parseArgs } from 'node:util';
import { GPT, presetConfig } from '../src/model/gpt.ts';
import { plantInductionCircuit } from '../src/model/induction-init.ts';
import { rng } from '../src/random.ts';

const { values } = parseArgs({
  options: {
    steps: { type: 'string', default: '800' },
    span: { type: 'string', default: '24' },
    pieces: { type: 'string', default: '2000' },
    fixed: { type: 'boolean', default: false },
    filler: { type: 'string', default: '24' },
    lrs: { type: 'string', default: '1e-3,3e-3' },
    threads: { type: 'string', default: '2' },
    layers: { type: 'string' },
    heads: { type: 'string' },
    rows: { type: 'string', default: '16' },
    every: { type: 'string', default: '0' },
    init: { type: 'string', default: 'gpt2' },
    'wpe-scale': { type: 'string', default: '0.028' },
    gains: { type: 'string' },
  },
});
const steps = Number(values.steps), L = Number(values.span), P = Number(values.pieces), F = Number(values.filler);
const VOCAB = 2048, FIRST = 8, ROWS = Number(values.rows), T = 2 * L + 2 + F;
if (P > VOCAB - FIRST) throw new Error(`--pieces must be at most ${VOCAB - FIRST}`);
if (!(L >= 8)) throw new Error('--span must be at least 8');
if (!['gpt2', 'sinusoidal', 'induction'].includes(values.init)) throw new Error(`--init must be gpt2, sinusoidal or induction, got ${values.init}`);

function batch(r: ReturnType<typeof rng>) {
  const tokens = new Int32Array(ROWS * T);
  const targets = new Int32Array(ROWS * T).fill(-1);
  const draw = (n: number, from: number) => Array.from({ length: n }, () => FIRST + r.int(from));
  for (let b = 0; b < ROWS; b++) {
    const k = r.int(F + 1);
    const n = values.fixed ? L : 8 + r.int(L - 7);
    const span = draw(n, P);
    const row = [1, ...draw(k, VOCAB - FIRST), ...span, 2, ...span, ...draw(F - k + 2 * (L - n), VOCAB - FIRST)];
    tokens.set(row, b * T);
    for (let t = k + n + 2; t < k + 2 * n + 1; t++) targets[b * T + t] = row[t + 1];
  }
  return { tokens, targets };
}

async function run(lr: number): Promise<{ formedAt: number | undefined; finalLoss: number; seconds: number }> {
  const shape = { ...presetConfig('default', VOCAB), nCtx: Math.max(64, Math.ceil(T / 64) * 64) };
  if (values.layers) shape.nLayer = Number(values.layers);
  if (values.heads) shape.nHead = Number(values.heads);
  const model = await GPT.create(shape, { seed: 1, threads: Number(values.threads) });
  if (values.init === 'induction') plantInductionCircuit(model, { seed: 1, gains: values.gains ? JSON.parse(values.gains) : undefined });
  if (values.init === 'sinusoidal') {
    // Positions alone as sinusoids (the transformer paper's), scaled to about GPT-2's init std.
    const wpe = model.parameters().find((t) => t.name === 'transformer.wpe.weight')!;
    const C = shape.nEmbd, s = Number(values['wpe-scale']);
    for (let p = 0; p < shape.nCtx; p++) {
      for (let i = 0; i < C / 2; i++) {
        const a = p / Math.pow(10000, (2 * i) / C);
        wpe.data[p * C + 2 * i] = s * Math.sin(a);
        wpe.data[p * C + 2 * i + 1] = s * Math.cos(a);
      }
    }
  }
  const r = rng(7);
  const t0 = performance.now();
  let formedAt: number | undefined;
  let loss = NaN;
  try {
    for (let step = 1; step <= steps; step++) {
      const { tokens, targets } = batch(r);
      model.zeroGrad();
      const { logprobs } = model.forward(tokens, targets, ROWS, T);
      const n = targets.filter((t) => t >= 0).length;
      const d = new Float32Array(logprobs.length);
      loss = 0;
      for (let i = 0; i < d.length; i++) if (targets[i] >= 0) { loss -= logprobs[i] / n; d[i] = -1 / n; }
      model.backward(d);
      model.clipGradNorm(1);
      model.optimizer.update({ lr: lr * Math.min(1, step / 50), beta2: 0.95, weightDecay: 0.1 });
      if (formedAt === undefined && loss < 0.5) formedAt = step;
      if (Number(values.every) > 0 && step % Number(values.every) === 0) console.log(`  step ${step}: loss ${loss.toFixed(3)}`);
    }
  } finally {
    await model.dispose();
  }
  return { formedAt, finalLoss: loss, seconds: (performance.now() - t0) / 1000 };
}

console.log(`copy task: ${values.fixed ? `spans of ${L}` : `spans of 8 to ${L}`} of ${P} distinct tokens, filler up to ${F}, ${ROWS} rows x ${T} tokens, ${steps} steps, ${values.layers ?? 4} layers, ${values.heads ?? 4} heads, d 128, init ${values.init}`);
console.log(`chance loss ln(${P}) = ${Math.log(P).toFixed(2)} nats\n`);
console.log('learning rate | copies from step | final loss | seconds');
for (const lr of values.lrs.split(',').map(Number)) {
  const res = await run(lr);
  console.log(`${String(lr).padStart(13)} | ${String(res.formedAt ?? `not in ${steps}`).padStart(16)} | ${res.finalLoss.toFixed(3).padStart(10)} | ${res.seconds.toFixed(0).padStart(7)}`);
}
