// Flag values checked once, the same way in every command: a bad value is a UsageError naming the flag, the rule and
// what was given.
import { UsageError } from './main.ts';

export interface NumberRule {
  integer?: boolean;
  /** > 0. */
  positive?: boolean;
  min?: number;
  max?: number;
}

function describe(r: NumberRule): string {
  const kind = r.integer ? 'an integer' : 'a number';
  if (r.positive) return r.integer ? 'a positive integer' : 'a positive number';
  if (r.min !== undefined && r.max !== undefined) return `${kind} from ${r.min} to ${r.max}`;
  if (r.min !== undefined) return `${kind} >= ${r.min}`;
  if (r.max !== undefined) return `${kind} <= ${r.max}`;
  return kind;
}

export function numberFlag(flag: string, value: string, rule: NumberRule = {}): number {
  const n = Number(value);
  const ok =
    value.trim() !== '' &&
    Number.isFinite(n) &&
    (!rule.integer || Number.isInteger(n)) &&
    (!rule.positive || n > 0) &&
    (rule.min === undefined || n >= rule.min) &&
    (rule.max === undefined || n <= rule.max);
  if (!ok) throw new UsageError(`${flag} must be ${describe(rule)}, got ${JSON.stringify(value)}`);
  return n;
}

export function choiceFlag<T extends string>(flag: string, value: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(value)) throw new UsageError(`${flag} must be one of ${allowed.join(', ')}, got ${JSON.stringify(value)}`);
  return value as T;
}
