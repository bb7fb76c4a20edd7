// Recipe variants of the student and what training one takes, shared by the benches that compare them:
// bench/learning.ts (sampled answers after SFT) and bench/decisions.ts (teacher-forced choices after a short SFT).
// A variant's teacher data is made once per (tasks, quirks, seed) and cached under OUT/teacher; its SFT run goes to
// OUT/sft/VARIANT-sSEED.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { QuirkRates } from '../src/diagram/teacher/quirks.ts';
import { TEACHER_QUIRKS as QUIRKS } from '../src/pipeline/run.ts';
import { ScriptedPolicy } from '../src/diagram/teacher/scripted.ts';
import { runTeacher } from '../src/diagram/teacher/teacher.ts';
import { getRubric } from '../src/diagram/reward/presets.ts';
import { generateTasks } from '../src/diagram/tasks/generate.ts';
import { runSft, sftConfig, type SFTConfig } from '../src/train/sft.ts';
import { diagramEnv } from '../src/diagram/diagram-env.ts';
import { arrowSays, edgeList, edgeSplit, edgeWalk, lettered, namedIds, numberedIds, rowLayout, shapesFirst, sourceFirst, sourceSays, targetFirst } from './answer-order.ts';

export interface Variant {
  /** What the variant changes, for the table. */
  about: string;
  trainTasks?: number;
  quirks?: QuirkRates;
  /** The teacher's request walk (src/diagram/teacher/walk.ts); off, as in the default run, unless true. */
  walk?: boolean;
  sft?: Partial<SFTConfig>;
  /** Rewrites each teacher answer to its request before SFT (same actions, another order or added fields). */
  answer?: (text: string, prompt: string) => string;
}

const FEW_QUIRKS: QuirkRates = { abbrev: 0.08, cramped: 0.05, overlap: 0.05, missing_edge: 0.02, prose: 0.05 };

export const VARIANTS: Record<string, Variant> = {
  base: { about: 'the default recipe: 4,000 tasks, quirky teacher, plain answers' },
  walk: { about: 'the walked answer (src/diagram/teacher/walk.ts): says through each name, shapes lettered, arrows target first', walk: true },
  say: { about: "the request walk alone: each shape's say runs through its name, ids are names", walk: true, answer: namedIds },
  tofirst: { about: 'say, and each arrow names its target before its source', walk: true, answer: (t) => targetFirst(namedIds(t)) },
  arrowsay: { about: 'say carried on through the arrows: an arrow says the words up to the next mention of its ends', walk: true, answer: (t, p) => arrowSays(namedIds(t), p) },
  numids: { about: 'say, and shapes numbered in the order drawn (arrows source first)', walk: true, answer: (t) => sourceFirst(numberedIds(t)) },
  numbers: { about: 'the walked answer with shapes numbered 1, 2, ... instead of lettered', walk: true, answer: numberedIds },
  srcsay: { about: "the walked answer, each arrow saying its source's name before its letter, each shape its text before its id", walk: true, answer: sourceSays },
  edgewalk: { about: 'the walk on through the edges: actions in the order the request states them, each arrow saying its statement, then the letter of the end it ended with', walk: true, answer: edgeWalk },
  edgelist: { about: 'every shape as walked, then the arrows in the order the request states them, a second walk from its start: each arrow says its statement, then the letter of the end it ended with', walk: true, answer: edgeList },
  edgesplit: { about: "edgelist with each arrow's say cut at its first end: the words through one end, its letter, the words through the other (then), its letter", walk: true, answer: edgeSplit },
  rotary: { about: 'the walked answer, and a model with rotary positions in place of learned ones (the planted circuit re-derived for them)', walk: true, sft: { positions: 'rotary' } },
  rowlayout: { about: 'the walked answer with every shape on one row in drawing order: coordinates that say nothing of the graph', walk: true, answer: rowLayout },
  numbered: { about: 'plain answers with shapes numbered and arrows target first, no says', answer: (t) => numberedIds(lettered(t)) },
  clean: { about: 'teacher without quirks', quirks: {} },
  fewquirks: { about: 'quirks at a quarter of the default rates', quirks: FEW_QUIRKS },
  fresh: { about: '12,000 tasks (each row seen about once)', trainTasks: 12000 },
  lr6: { about: 'learning rate 6e-3 (default 3e-3)', sft: { learning_rate: 6e-3 } },
  nostutter: { about: 'no stutter noise', sft: { stutter_rate: 0 } },
  gpt2init: { about: 'GPT-2 init, no planted copying circuit', sft: { model_init: 'gpt2' } },
  bigbatch: { about: '4,096 tokens per step (half the steps)', sft: { tokens_per_batch: 4096 } },
  vocab1024: { about: 'BPE vocabulary of 1,024 (default 2,048): names in more, more frequent pieces', sft: { vocab_size: 1024 } },
  shapesfirst: { about: 'every shape, then every arrow (teacher answers reordered)', answer: shapesFirst },
};

/** The variant by name, or an error listing the names. */
export function variantNamed(name: string): Variant {
  const v = VARIANTS[name];
  if (!v) throw new Error(`unknown variant ${name}: ${Object.keys(VARIANTS).join(', ')}`);
  return v;
}

/** The teacher's SFT rows for a variant and seed (cached), and the seconds the teacher took to write them. */
export async function teacherData(out: string, v: Variant, seed: number): Promise<{ path: string; seconds: number }> {
  const n = v.trainTasks ?? 4000;
  const quirks = v.quirks ?? QUIRKS;
  const walk = v.walk ?? false;
  const dir = join(out, 'teacher', `${n}-${JSON.stringify(quirks).replace(/[^a-z0-9.]+/gi, '_')}-s${seed}${walk ? '-walk' : ''}`);
  const path = join(dir, 'train.jsonl');
  const timing = join(dir, 'seconds.txt');
  if (existsSync(timing)) return { path, seconds: Number(readFileSync(timing, 'utf8')) };
  const t0 = performance.now();
  const tasks = generateTasks({ split: 'train', n, seed, syntheticNames: 1 });
  const specs = new Map(tasks.map((t) => [t.prompt, t.spec]));
  await runTeacher({
    policy: new ScriptedPolicy({ specFor: (p) => specs.get(p), quirks, walk }),
    rubric: getRubric('strong'),
    tasks,
    outDir: dir,
    config: { policy: 'scripted', attempts: 1, minReward: 0.6, seed, temperature: 0, reward: 'strong', quirks: quirks as Record<string, number>, walk },
  });
  const seconds = (performance.now() - t0) / 1000;
  writeFileSync(timing, String(seconds));
  return { path, seconds };
}

/** The teacher's rows with each answer rewritten by the variant, next to the SFT run that reads them. */
function rewritten(out: string, path: string, name: string, answer: (text: string, prompt: string) => string): string {
  const target = join(out, 'data', `${name}-${path.split('/').at(-2)}.jsonl`);
  mkdirSync(join(out, 'data'), { recursive: true });
  const rows = readFileSync(path, 'utf8').split('\n').filter((l) => l.trim()).map((l) => {
    const row = JSON.parse(l) as { messages: { role: string; content: string }[] };
    const prompt = row.messages.find((m) => m.role === 'user')?.content ?? '';
    const last = row.messages.at(-1)!;
    last.content = answer(last.content, prompt);
    return JSON.stringify(row);
  });
  writeFileSync(target, rows.join('\n') + '\n');
  return target;
}

/**
 * SFT of a variant for a budget of tokens (budget seconds x tokensPerS, the default shape's rate on a quiet machine,
 * so variants of one shape see the same tokens whatever shares the cores), no evaluation during training. Returns the
 * final checkpoint, the steps and the seconds the teacher and SFT took.
 */
/** Where a variant's SFT run for a seed goes; its checkpoint is `final` inside. */
export const variantDir = (out: string, name: string, seed: number) => join(out, 'sft', `${name}-s${seed}`);

export async function trainVariant(o: { out: string; name: string; seed: number; budgetS: number; tokensPerS: number; log: (line: string) => void }): Promise<{ dir: string; steps: number; teacherS: number; sftS: number }> {
  const v = variantNamed(o.name);
  const teacher = await teacherData(o.out, v, o.seed);
  const dataPath = v.answer ? rewritten(o.out, teacher.path, o.name, v.answer) : teacher.path;
  const steps = Math.round((o.budgetS * o.tokensPerS) / (v.sft?.tokens_per_batch ?? 2048));
  const dir = variantDir(o.out, o.name, o.seed);
  rmSync(dir, { recursive: true, force: true });
  o.log(`${o.name} seed ${o.seed}: SFT ${steps} steps`);
  const t0 = performance.now();
  await runSft({
    env: diagramEnv,
    config: sftConfig('default', dir, { ...v.sft, seed: 42 + o.seed, max_steps: steps, eval_steps: 1e9, save_steps: 1e9, final_eval_samples: 0, eval_samples: 0, final_eval_structured_output: false }),
    dataPath,
    onProgress: (p) => {
      if (p.log && p.step % 100 === 0) o.log(`  step ${p.step}/${p.maxSteps} loss ${p.log.loss.toFixed(3)}`);
    },
  });
  return { dir: join(dir, 'final'), steps, teacherS: teacher.seconds, sftS: (performance.now() - t0) / 1000 };
}
