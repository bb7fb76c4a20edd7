// Speed of GRPO: a few steps of the default config from a checkpoint, then steps/s, rollout tokens/s and the share of
// each step spent sampling, scoring and updating. Without --init, a random default-size student is built (its completions
// run to the length limit, so the figures are those of the longest rollouts).
//   npx tsx bench/grpo.ts [--init CKPT] [--steps 5] [--grpo key=value,...]
import { mkdtempSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { GPT, presetConfig } from '../src/model/gpt.ts';
import { saveCheckpoint } from '../src/model/checkpoint.ts';
import { trainTokenizer } from '../src/model/tokenizer.ts';
import { SYSTEM_PROMPT } from '../src/diagram/language/prompt.ts';
import { generateTasks } from '../src/diagram/tasks/generate.ts';
import { grpoConfig, trainGrpo, type GRPOConfig, type GrpoLogRow } from '../src/train/grpo.ts';
import { diagramEnv } from '../src/diagram/diagram-env.ts';

const { values: args } = parseArgs({
  options: {
    init: { type: 'string' },
    steps: { type: 'string', default: '5' },
    grpo: { type: 'string', default: '' },
  },
});

const tasks = generateTasks({ split: 'train', n: 500, seed: 0 });

async function randomStudent(): Promise<string> {
  const dir = join(mkdtempSync(join(tmpdir(), 'bench-grpo-')), 'init');
  const tokenizer = trainTokenizer([SYSTEM_PROMPT, ...tasks.map((t) => t.prompt)], { vocabSize: 2048 });
  const model = await GPT.create(presetConfig('default', tokenizer.vocabSize), { seed: 0 });
  saveCheckpoint(dir, { model, tokenizer });
  await model.dispose();
  return dir;
}

const overrides: Record<string, unknown> = {};
for (const entry of args.grpo!.split(',').filter(Boolean)) {
  const [k, v] = entry.split('=');
  overrides[k] = v === 'true' ? true : v === 'false' ? false : Number.isFinite(Number(v)) ? Number(v) : v;
}
const init = args.init ?? (await randomStudent());
const cfg = grpoConfig({
  ...(overrides as Partial<GRPOConfig>),
  output_dir: mkdtempSync(join(tmpdir(), 'bench-grpo-out-')),
  init,
  max_steps: Number(args.steps),
  save_steps: 1000,
});
const rows: GrpoLogRow[] = [];
const t0 = performance.now();
await trainGrpo(cfg, { env: diagramEnv, tasks, onStep: (r) => {
  rows.push(r);
  process.stderr.write(`step ${r.step}: ${r.step_seconds.toFixed(1)} s, reward ${r.reward_mean.toFixed(3)}, completion length ${r.completion_length.toFixed(0)}\n`);
} });
const wall = (performance.now() - t0) / 1000;

const sum = (f: (r: GrpoLogRow) => number) => rows.reduce((s, r) => s + f(r), 0);
const stepSeconds = sum((r) => r.step_seconds);
const share = (f: (r: GrpoLogRow) => number) => `${((100 * sum(f)) / stepSeconds).toFixed(0)}%`;
console.log(`GRPO bench: ${rows.length} steps of ${cfg.generation_batch_size} completions (${cfg.generation_batch_size / cfg.num_generations} prompts x ${cfg.num_generations}), max_completion_length ${cfg.max_completion_length}, init ${args.init ?? 'random default-size student'}`);
console.log(`steps/s                ${(rows.length / stepSeconds).toFixed(3)} (${(stepSeconds / rows.length).toFixed(1)} s per step; ${wall.toFixed(0)} s wall with loading and checkpoints)`);
console.log(`rollout tokens/s       ${(sum((r) => r.completion_tokens) / sum((r) => r.sample_seconds)).toFixed(0)} (completion tokens while sampling; mean completion ${(sum((r) => r.completion_length) / rows.length).toFixed(0)} tokens)`);
console.log(`step tokens/s          ${(sum((r) => r.completion_tokens) / stepSeconds).toFixed(0)} (completion tokens over the whole step)`);
console.log(`time: sampling ${share((r) => r.sample_seconds)}, scoring ${share((r) => r.score_seconds)}, updating ${share((r) => r.update_seconds)}`);
console.log(`(2 cores shared with other work: figures are noisy; load average ${loadavg()[0].toFixed(1)})`);
