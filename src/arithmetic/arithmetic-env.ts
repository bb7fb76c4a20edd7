// A second, tiny environment: "What is 17 + 25?", answered with the number. It exists to show what an environment
// needs (docs/environments.md) and that SFT, GRPO and evaluation train one they know nothing of.
import { z } from 'zod';
import type { EnvOutcome, EnvTask, TextEnv } from '../environment/text-env.ts';
import { hashSeed, seededRandom } from '../random.ts';

export const ArithmeticSpec = z.object({ a: z.number().int().min(0), b: z.number().int().min(0) });
export type ArithmeticSpec = z.infer<typeof ArithmeticSpec>;
type ArithmeticTask = EnvTask<ArithmeticSpec>;

/** Operands run from 0 to MAX_OPERAND; a task's level is the digit count of its larger operand, less one. */
export const MAX_OPERAND = 99;
const SPLITS = ['train', 'heldout'] as const;
const SYSTEM = 'You add two whole numbers. Answer with the sum only, in digits.';
/** The correct answer counts for most of the reward; answering with the bare number for the rest. */
const WEIGHTS = { correct: 0.8, format: 0.2 };

/** One pair in ten is held out, by a hash of the pair, so that the two splits never share a task. */
const splitOf = (a: number, b: number) => (hashSeed('arithmetic-split', a, b) % 10 === 0 ? 'heldout' : 'train');

function pairsOf(split: string): ArithmeticSpec[] {
  if (!(SPLITS as readonly string[]).includes(split)) throw new Error(`unknown split ${JSON.stringify(split)}: use ${SPLITS.join(' or ')}`);
  const pairs: ArithmeticSpec[] = [];
  for (let a = 0; a <= MAX_OPERAND; a++) for (let b = 0; b <= MAX_OPERAND; b++) if (splitOf(a, b) === split) pairs.push({ a, b });
  return pairs;
}

/** The last whole number in the completion: what a reader takes as its answer. */
function answerIn(completion: string): number | null {
  const numbers = completion.match(/-?\d+/g);
  return numbers ? Number(numbers[numbers.length - 1]) : null;
}

const bare = (completion: string) => /^\s*-?\d+\s*$/.test(completion);

function score(task: ArithmeticTask, completion: string) {
  const answer = answerIn(completion);
  const components = { correct: answer === task.spec.a + task.spec.b ? 1 : 0, format: bare(completion) ? 1 : 0 };
  const errors = answer === null ? ['no number in the answer'] : components.correct ? [] : [`answered ${answer}, the sum is ${task.spec.a + task.spec.b}`];
  return { reward: WEIGHTS.correct * components.correct + WEIGHTS.format * components.format, components, errors };
}

function outcome(_task: ArithmeticTask, completion: string): EnvOutcome {
  const answer = answerIn(completion);
  return { parsed: answer !== null, wellFormed: answer !== null, valid: bare(completion), errors: answer === null ? ['no number in the answer'] : [], metrics: null };
}

export const arithmeticEnv: TextEnv<ArithmeticSpec> = {
  name: 'arithmetic',
  description: 'add two numbers from 0 to 99 and answer with the sum',
  spec: ArithmeticSpec,
  splits: SPLITS,
  rewards: ['answer'],
  defaultReward: 'answer',
  evalRewards: ['answer'],
  reward: (name) => {
    if (name !== 'answer') throw new Error(`unknown reward ${JSON.stringify(name)}: use answer`);
    return { name, score };
  },
  tasks: (split, n, seed) => {
    const pairs = pairsOf(split);
    const random = seededRandom(hashSeed(seed, 'arithmetic', split));
    // A partial Fisher-Yates shuffle: n distinct pairs.
    const count = Math.min(n, pairs.length);
    for (let i = 0; i < count; i++) {
      const j = i + Math.floor(random() * (pairs.length - i));
      [pairs[i], pairs[j]] = [pairs[j], pairs[i]];
    }
    return pairs.slice(0, count).map((spec) => ({ id: `add-${spec.a}-${spec.b}`, prompt: `What is ${spec.a} + ${spec.b}?`, spec }));
  },
  conversation: (task) => [
    { role: 'system', content: SYSTEM },
    { role: 'user', content: task.prompt },
  ],
  outcome,
  metricNames: [],
  level: (task) => String(Math.max(task.spec.a, task.spec.b)).length - 1,
  reference: (task) => String(task.spec.a + task.spec.b),
  groups: (task) => ({ level: String(arithmeticEnv.level(task)) }),
};
