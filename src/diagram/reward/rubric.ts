// A reward is a rubric: named components in [0, 1] with weights, over a context prepared once per completion.
// Presets (seed, strong) are different rubrics over shared component functions.
import type { ActionOutcome } from '../language/apply.ts';
import type { DiagramSpec } from '../tasks/spec.ts';
import type { LayoutReport } from './layout.ts';

/** What a real renderer (the tldraw editor, src/diagram/tldraw/score.ts) made of the completion's actions. */
export interface RendererReadback {
  renderer: string;
  /** The renderer's verdict on each action, in the completion's order. */
  outcomes: ActionOutcome[];
  /** Shapes on the renderer's page at the end. */
  shapes: number;
  /** Layout of what the renderer drew, its lints included. */
  layout: LayoutReport | null;
  errors: string[];
}

export interface ScoreInput {
  prompt: string;
  completion: string;
  /** Ground truth; without it, rubrics that need one extract it from the prompt. */
  spec?: DiagramSpec;
  /** When given, rubrics that look at rendering (strong's renderer_accepts, layout_quality) use it instead of the built-in canvas. */
  readback?: RendererReadback;
}

export interface Score {
  reward: number;
  /** Every component's value in [0, 1], zero-weight ones included. */
  components: Record<string, number>;
  weights: Record<string, number>;
  /** Parse failures and refused actions, as readable lines (worded when first read, the same array on every read). */
  errors: string[];
}

export interface Component<C> {
  name: string;
  weight: number;
  /** One line for reports and `--help`. */
  description: string;
  fn: (ctx: C) => number;
}

/** `I` is what a score is asked of: a completion (ScoreInput) for the diagram's rewards, an edited canvas for
 *  editing's (src/editing/tasks.ts). */
export interface Rubric<I = ScoreInput> {
  name: string;
  description: string;
  components: { name: string; weight: number; description: string }[];
  score(input: I): Score;
}

export interface RubricDefinition<C, I = ScoreInput> {
  name: string;
  description: string;
  /** Everything the components measure, computed once per completion and shared by all of them. */
  prepare: (input: I) => C;
  components: Component<C>[];
  /** The errors, or a function that words them when first read (for messages that cost more than the score). */
  errors: (ctx: C) => string[] | (() => string[]);
  /** When it returns false the reward is 0 whatever the components say (the seed's all-or-nothing validity). */
  gate?: (ctx: C) => boolean;
}

const clamp01 = (v: number) => (Number.isFinite(v) ? Math.min(1, Math.max(0, v)) : 0);

/** A score whose errors `word` words on first read; the same array on every later read, or the one assigned. */
function withLazyErrors(score: Omit<Score, 'errors'>, word: () => string[]): Score {
  let errors: string[] | undefined;
  return Object.defineProperty(score, 'errors', {
    enumerable: true,
    configurable: true,
    get: () => (errors ??= word()),
    set: (value: string[]) => {
      errors = value;
    },
  }) as Score;
}

/** A rubric: the weighted sum of its components, each clamped to [0, 1], over one context per completion.
 *  `scoreContext` scores a context already prepared, for a caller that reports more of it than the score. */
export function defineRubric<C, I = ScoreInput>(def: RubricDefinition<C, I>): Rubric<I> & { scoreContext(ctx: C): Score } {
  const names = new Set<string>();
  for (const { name } of def.components) {
    if (name === '__proto__' || names.has(name)) throw new Error(`rubric component name ${JSON.stringify(name)} is reserved or repeated`);
    names.add(name);
  }
  const weights = Object.fromEntries(def.components.map((c) => [c.name, c.weight]));
  const scoreContext = (ctx: C): Score => {
    const components: Record<string, number> = {};
    let reward = 0;
    for (const c of def.components) {
      const value = clamp01(c.fn(ctx));
      components[c.name] = value;
      reward += c.weight * value;
    }
    if (def.gate && !def.gate(ctx)) reward = 0;
    const errors = def.errors(ctx);
    return typeof errors === 'function' ? withLazyErrors({ reward, components, weights }, errors) : { reward, components, weights, errors };
  };
  return {
    name: def.name,
    description: def.description,
    components: def.components.map(({ name, weight, description }) => ({ name, weight, description })),
    score: (input) => scoreContext(def.prepare(input)),
    scoreContext,
  };
}
