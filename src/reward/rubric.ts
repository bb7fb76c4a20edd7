// A reward is a rubric: named components in [0, 1] with weights, over a context prepared once per completion.
// Presets (seed, strong) are different rubrics over shared component functions.
import type { ActionOutcome } from '../env/apply.ts';
import type { DiagramSpec } from '../tasks/spec.ts';
import type { LayoutReport } from './layout.ts';

/** What a real renderer (the tldraw editor, src/tldraw/score.ts) made of the completion's actions. */
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

export interface Rubric {
  name: string;
  description: string;
  components: { name: string; weight: number; description: string }[];
  score(input: ScoreInput): Score;
}

export interface RubricDefinition<C> {
  name: string;
  description: string;
  prepare: (input: ScoreInput) => C;
  components: Component<C>[];
  /**
   * The errors, or a function that words them when first read (for messages that cost more than the score), or null
   * to have `wordErrors(ctx)` word them when first read (no closure per score).
   */
  errors: (ctx: C) => string[] | (() => string[]) | null;
  wordErrors?: (ctx: C) => string[];
  /** When it returns false the reward is 0 whatever the components say (the seed's all-or-nothing validity). */
  gate?: (ctx: C) => boolean;
}

const clamp01 = (v: number) => (Number.isFinite(v) ? Math.min(1, Math.max(0, v)) : 0);

/** The own, enumerable `errors` accessor every LazyErrorsScore shares (see the class). */
let lazyErrors: PropertyDescriptor;

/**
 * A score whose errors are worded on first read, then the same array on every read. `errors` is an own enumerable
 * accessor, so `{...score}`, JSON.stringify and toEqual see it as on a plain score; its getter and setter are shared
 * by every instance and keep their state in private fields. An object literal with a getter and a setter made two
 * closures per score and left the object in dictionary mode: about 0.5 µs more per score.
 */
class LazyErrorsScore implements Score {
  reward: number;
  components: Record<string, number>;
  weights: Record<string, number>;
  declare errors: string[];
  #word: ((arg: unknown) => string[]) | null;
  #arg: unknown;
  #errors: string[] | null = null;

  /** `word(arg)` words the errors. */
  constructor(reward: number, components: Record<string, number>, weights: Record<string, number>, word: (arg: never) => string[], arg: unknown) {
    this.reward = reward;
    this.components = components;
    this.weights = weights;
    this.#word = word as (arg: unknown) => string[];
    this.#arg = arg;
    Object.defineProperty(this, 'errors', lazyErrors);
  }

  static {
    lazyErrors = {
      enumerable: true,
      configurable: true,
      get(this: LazyErrorsScore): string[] {
        if (this.#errors === null) {
          this.#errors = this.#word!(this.#arg);
          this.#word = null;
          this.#arg = null;
        }
        return this.#errors;
      },
      set(this: LazyErrorsScore, value: string[]) {
        this.#errors = value;
        this.#word = null;
        this.#arg = null;
      },
    };
  }
}

/** Calls a thunk: LazyErrorsScore's word for rubrics whose `errors` answers a function. */
function callThunk(word: () => string[]): string[] {
  return word();
}

/**
 * The components record and the reward of a context, written for one rubric: each component's function called from
 * its own site, and the record one object literal of the rubric's names, so that every score shares one shape. A
 * loop that filled `{}` by name (a keyed store and a call from one shared site per component) cost about 0.3 µs more
 * per score.
 */
function componentsWriter<C>(components: Component<C>[]): (ctx: C, reward: Float64Array) => Record<string, number> {
  const names = new Set<string>();
  for (const { name } of components) {
    // In an object literal "__proto__" would set the prototype; a repeated name would keep only one value.
    if (name === '__proto__' || names.has(name)) throw new Error(`rubric component name ${JSON.stringify(name)} is reserved or repeated`);
    names.add(name);
  }
  const steps = components.map((_, k) => `const v${k} = clamp01(fns[${k}](ctx));\n  reward += weights[${k}] * v${k};`);
  const fields = components.map((c, k) => `${JSON.stringify(c.name)}: v${k}`);
  const body = `return function components(ctx, out) {\n  let reward = 0;\n  ${steps.join('\n  ')}\n  out[0] = reward;\n  return { ${fields.join(', ')} };\n};`;
  const make = new Function('fns', 'weights', 'clamp01', body) as (
    fns: ((ctx: C) => number)[],
    weights: number[],
    clamp: (v: number) => number,
  ) => (ctx: C, reward: Float64Array) => Record<string, number>;
  return make(
    components.map((c) => c.fn),
    components.map((c) => c.weight),
    clamp01,
  );
}

export function defineRubric<C>(def: RubricDefinition<C>): Rubric {
  const weights = Object.fromEntries(def.components.map((c) => [c.name, c.weight]));
  const writeComponents = componentsWriter(def.components);
  const out = new Float64Array(1);
  const { prepare, gate, wordErrors } = def;
  const errorsOf = def.errors;
  return {
    name: def.name,
    description: def.description,
    components: def.components.map(({ name, weight, description }) => ({ name, weight, description })),
    score(input) {
      const ctx = prepare(input);
      const components = writeComponents(ctx, out);
      let reward = out[0];
      if (gate && !gate(ctx)) reward = 0;
      const errors = errorsOf(ctx);
      if (errors === null) {
        if (!wordErrors) throw new Error(`rubric ${def.name}: errors answered null without wordErrors`);
        return new LazyErrorsScore(reward, components, weights, wordErrors, ctx);
      }
      return typeof errors === 'function' ? new LazyErrorsScore(reward, components, weights, callThunk, errors) : { reward, components, weights, errors };
    },
  };
}
