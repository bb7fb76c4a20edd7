// The filters of a rollout list, as URL query parameters (so that a filtered list is a link to share), checked by one
// schema: a bad value is a 400 that names the parameter.
import { z } from 'zod';
import { ERROR_KINDS } from '../diagram/language/error-kinds.ts';
import type { Rollout } from './rollout.ts';

const number = z.coerce.number().refine(Number.isFinite, 'a number');
const integer = z.coerce.number().int('an integer');

export const Filters = z.object({
  step: integer.min(0).optional().describe('training step (SFT evaluations, GRPO rollouts)'),
  task: z.string().optional().describe('task id'),
  kind: z.string().optional().describe("the task's kind (chain, fan_out, tree, ...)"),
  difficulty: integer.min(0).optional().describe("the task's difficulty level"),
  min: number.optional().describe('reward at least'),
  max: number.optional().describe('reward at most'),
  error: z.enum(ERROR_KINDS).optional().describe('a kind of error the rollout has'),
  quirk: z.string().optional().describe('a teacher quirk the rollout shows'),
  below: z
    .string()
    .regex(/^[\w.-]+:-?\d+(\.\d+)?$/, 'COMPONENT:VALUE, e.g. edges:0.5')
    .optional()
    .describe('a reward component below a value, COMPONENT:VALUE (any rubric that has it)'),
  q: z.string().optional().describe('text in the prompt or the completion (case-insensitive)'),
  sort: z.enum(['line', 'reward', '-reward']).default('line').describe('order: file order, lowest reward first, highest first'),
  page: integer.min(1).default(1),
  per: integer.min(1).max(500).default(50),
});
export type Filters = z.infer<typeof Filters>;

/** The filters a query string gives, or the first bad parameter and why. */
export function readFilters(params: URLSearchParams): { ok: true; filters: Filters } | { ok: false; error: string } {
  const raw: Record<string, string> = {};
  for (const [k, v] of params) if (v !== '') raw[k] = v;
  const unknown = Object.keys(raw).filter((k) => !Object.hasOwn(Filters.shape, k));
  if (unknown.length) return { ok: false, error: `unknown filter ${unknown[0]}: the filters are ${Object.keys(Filters.shape).join(', ')}` };
  const r = Filters.safeParse(raw);
  if (r.success) return { ok: true, filters: r.data };
  const issue = r.error.issues[0];
  return { ok: false, error: `${issue.path.join('.')}: ${issue.message}, got ${JSON.stringify(raw[String(issue.path[0])])}` };
}

/** The text filter as a case-insensitive pattern, made once per list: a regular expression scans the rows' own strings,
 *  where lower-casing every row first costs a second on 100,000 rows (bench/inspect.ts). */
const patternOf = (q: string) => new RegExp(q.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'i');

function matches(r: Rollout, f: Filters, text: RegExp | undefined): boolean {
  if (f.step !== undefined && r.step !== f.step) return false;
  if (f.task !== undefined && r.taskId !== f.task) return false;
  if (f.kind !== undefined && r.spec?.kind !== f.kind) return false;
  if (f.difficulty !== undefined && r.spec?.difficulty !== f.difficulty) return false;
  if (f.min !== undefined && !(r.reward !== null && r.reward >= f.min)) return false;
  if (f.max !== undefined && !(r.reward !== null && r.reward <= f.max)) return false;
  if (f.error !== undefined && !r.errorKinds.includes(f.error)) return false;
  if (f.quirk !== undefined && !r.quirks.includes(f.quirk)) return false;
  if (f.below !== undefined) {
    const [name, value] = f.below.split(':');
    const has = Object.values(r.components).filter((c) => Object.hasOwn(c, name));
    if (!has.some((c) => c[name] < Number(value))) return false;
  }
  if (text && !text.test(r.prompt) && !text.test(r.completion)) return false;
  return true;
}

/** The rollouts a list shows: filtered, sorted, and the page asked for, with how many matched in all. */
export function selectPage(rollouts: readonly Rollout[], f: Filters): { total: number; page: Rollout[] } {
  const text = f.q === undefined ? undefined : patternOf(f.q);
  const hits = rollouts.filter((r) => matches(r, f, text));
  if (f.sort !== 'line') {
    const sign = f.sort === 'reward' ? 1 : -1;
    hits.sort((a, b) => sign * ((a.reward ?? -Infinity) - (b.reward ?? -Infinity)) || a.n - b.n);
  }
  return { total: hits.length, page: hits.slice((f.page - 1) * f.per, f.page * f.per) };
}
