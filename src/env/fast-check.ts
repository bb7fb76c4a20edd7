// A fast validity check compiled from the zod action schemas at load time.
// Scoring runs every action of every completion through the schema, and zod's general machinery costs a few
// microseconds per action: too slow for the reward's budget. The schemas stay the one definition: this module reads
// their definitions and builds plain predicates; zod still runs for any action this check refuses, to word the error.
// A schema node this compiler does not know throws at load, so the two can never silently disagree.
import type { z } from 'zod';

type Check = (v: unknown) => boolean;

interface Def {
  type: string;
  checks?: { _zod: { def: { check: string; minimum?: number; value?: number; inclusive?: boolean } } }[];
  values?: unknown[];
  entries?: Record<string, unknown>;
  innerType?: z.ZodType;
  shape?: Record<string, z.ZodType>;
}

const defOf = (schema: z.ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;

function compileNode(schema: z.ZodType, where: string): Check {
  const def = defOf(schema);
  const checks = (def.checks ?? []).map((c) => c._zod.def);
  switch (def.type) {
    case 'string': {
      let min = 0;
      for (const c of checks) {
        if (c.check === 'min_length') min = c.minimum!;
        else throw new Error(`fast-check: unsupported string check ${c.check} at ${where}`);
      }
      return (v) => typeof v === 'string' && v.length >= min;
    }
    case 'number': {
      let lo = -Infinity;
      let loInclusive = true;
      let hi = Infinity;
      let hiInclusive = true;
      for (const c of checks) {
        if (c.check === 'greater_than') [lo, loInclusive] = [c.value!, c.inclusive!];
        else if (c.check === 'less_than') [hi, hiInclusive] = [c.value!, c.inclusive!];
        else throw new Error(`fast-check: unsupported number check ${c.check} at ${where}`);
      }
      return (v) =>
        typeof v === 'number' && Number.isFinite(v) && (loInclusive ? v >= lo : v > lo) && (hiInclusive ? v <= hi : v < hi);
    }
    case 'enum': {
      const allowed = new Set(Object.values(def.entries!));
      return (v) => allowed.has(v);
    }
    case 'literal': {
      const allowed = new Set(def.values!);
      return (v) => allowed.has(v);
    }
    case 'optional': {
      const inner = compileNode(def.innerType!, where);
      return (v) => v === undefined || inner(v);
    }
    default:
      throw new Error(`fast-check: unsupported schema type ${def.type} at ${where}`);
  }
}

/** A predicate equivalent to `schema.safeParse(v).success` for the object schemas of the action language. */
export function compileObjectCheck(schema: z.ZodType): (v: Record<string, unknown>) => boolean {
  const def = defOf(schema);
  if (def.type !== 'object' || !def.shape) throw new Error(`fast-check: expected an object schema, got ${def.type}`);
  const fields = Object.entries(def.shape).map(([key, node]) => [key, compileNode(node, key)] as const);
  return (v) => {
    for (const [key, check] of fields) if (!check(v[key])) return false;
    return true;
  };
}
