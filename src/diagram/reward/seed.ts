// The seed's reward.py as a rubric: 0.4 valid + 0.3 layout + 0.3 semantics, and 0 unless every action applied.
// Bit for bit: the same float operations in the same order, on a canvas built the way Python builds it (seed-python.ts).
import { defineRubric, type Rubric } from './rubric.ts';
import { checkCompletion, pyHasNonSpace, type SeedCanvas } from './seed-python.ts';

interface SeedContext {
  /** Parsed, and every action applied. */
  clean: boolean;
  /** score_layout and score_semantics of the canvas (0 when parse_actions raised). */
  layout: number;
  semantics: number;
  /** validate_completion's strings, or a function that words them when first read. */
  errors: string[] | (() => string[]);
}

/** `re.findall(r"[a-zA-Z][a-zA-Z0-9_-]+", text.lower())` into a set. */
const WORD = /[a-zA-Z][a-zA-Z0-9_-]+/g;

function words(text: string, into: Set<string> = new Set()): Set<string> {
  const lower = text.toLowerCase();
  WORD.lastIndex = 0;
  for (let m = WORD.exec(lower); m !== null; m = WORD.exec(lower)) into.add(m[0]);
  return into;
}

/** score_layout: -0.15 per touching or overlapping pair, +0.1 per labeled shape and per arrow (each up to 5), clamped. */
export function seedLayout(canvas: SeedCanvas): number {
  if (canvas.shapes.size === 0) return 0.0;
  let score = 1.0;
  const shapes = [...canvas.shapes.values()];
  for (let i = 0; i < shapes.length; i++) {
    const a = shapes[i];
    const ax2 = a.x + a.w;
    const ay2 = a.y + a.h;
    for (let j = i + 1; j < shapes.length; j++) {
      const b = shapes[j];
      const bx2 = b.x + b.w;
      const by2 = b.y + b.h;
      const overlap = !(ax2 < b.x || bx2 < a.x || ay2 < b.y || by2 < a.y);
      if (overlap) score -= 0.15;
    }
  }
  let labeled = 0;
  for (const s of shapes) if (pyHasNonSpace(s.text)) labeled++;
  score += 0.1 * Math.min(labeled, 5);
  score += 0.1 * Math.min(canvas.arrows.length, 5);
  return Math.max(0.0, Math.min(1.0, score));
}

let lastPrompt: string | undefined;
let lastImportant = new Set<string>();

/** Prompt words of 4+ characters; GRPO scores a group of completions per prompt, so the last one is kept. */
function importantWords(prompt: string): Set<string> {
  if (prompt !== lastPrompt) {
    lastImportant = new Set([...words(prompt)].filter((w) => w.length >= 4));
    lastPrompt = prompt;
  }
  return lastImportant;
}

/** score_semantics: the share of the prompt's 4+ letter words found among label words; 0.5 when there are none. */
export function seedSemantics(prompt: string, canvas: SeedCanvas): number {
  const important = importantWords(prompt);
  if (important.size === 0) return 0.5;
  const labelWords = new Set<string>();
  for (const s of canvas.shapes.values()) words(s.text, labelWords);
  let hits = 0;
  for (const w of important) if (labelWords.has(w)) hits++;
  const coverage = hits / Math.max(1, important.size);
  return Math.max(0.0, Math.min(1.0, coverage));
}

const passes = (ctx: SeedContext) => ctx.clean;

/**
 * validate_completion, score_layout and score_semantics, once per completion. A refusal's message may be a Python
 * JSON error, which takes the exact reader a pass over the text: worded when first read, as few callers read it.
 */
function prepareSeed(prompt: string, completion: string): SeedContext {
  const outcome = checkCompletion(completion);
  if (outcome.canvas === null) {
    const { refusal } = outcome;
    return { clean: false, layout: 0, semantics: 0, errors: () => [refusal.message] };
  }
  const { canvas, errors } = outcome;
  return { clean: errors.length === 0, layout: seedLayout(canvas), semantics: seedSemantics(prompt, canvas), errors };
}

export const seedRubric: Rubric = defineRubric<SeedContext>({
  name: 'seed',
  description: "the seed document's reward.py, exactly: 0.4 valid + 0.3 layout + 0.3 semantics, 0 on any parse or action error",
  prepare: ({ prompt, completion }) => prepareSeed(prompt, completion),
  components: [
    {
      name: 'valid',
      weight: 0.4,
      description: 'the completion parsed and every action applied (also the gate: any error makes the reward 0)',
      fn: (ctx) => (passes(ctx) ? 1 : 0),
    },
    {
      name: 'layout',
      weight: 0.3,
      description: '1 - 0.15 per touching pair + 0.1 per labeled shape (max 5) + 0.1 per arrow (max 5), clamped',
      fn: (ctx) => ctx.layout,
    },
    {
      name: 'semantics',
      weight: 0.3,
      description: "share of the prompt's 4+ letter words that appear in shape labels (0.5 if the prompt has none)",
      fn: (ctx) => ctx.semantics,
    },
  ],
  errors: (ctx) => ctx.errors,
  gate: passes,
});
