// Flag values checked once, the same way in every command: a bad value is a UsageError naming the flag, the rule and
// what was given. Output paths are checked here too, before a command starts work that a bad path would waste.
import { accessSync, constants, statSync, type Stats } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, resolve } from 'node:path';
import { UsageError } from './usage-error.ts';

export interface NumberRule {
  /** A safe integer: past 2^53 a seed or a count no longer says which value it is. */
  integer?: boolean;
  /** > 0. */
  positive?: boolean;
  min?: number;
  max?: number;
  /** An exclusive upper bound, for shares that must leave something over (a warmup ratio of 1 would never train). */
  below?: number;
  /** Why the bounds are what they are, said after them. */
  note?: string;
}

function describe(r: NumberRule): string {
  const kind = r.integer ? 'an integer' : 'a number';
  if (r.positive && r.max !== undefined) return `${kind} in (0, ${r.max}]`;
  if (r.positive) return r.integer ? 'a positive integer' : 'a positive number';
  if (r.min !== undefined && r.below !== undefined) return `${kind} in [${r.min}, ${r.below})`;
  if (r.min !== undefined && r.max !== undefined) return `${kind} from ${r.min} to ${r.max}`;
  if (r.min !== undefined) return `${kind} >= ${r.min}`;
  if (r.max !== undefined) return `${kind} <= ${r.max}`;
  return kind;
}

/** The flag's number; a flag left out (undefined) stays undefined, so that the config's default applies. */
export function numberFlag(flag: string, value: string, rule?: NumberRule): number;
export function numberFlag(flag: string, value: string | undefined, rule?: NumberRule): number | undefined;
export function numberFlag(flag: string, value: string | undefined, rule: NumberRule = {}): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  const ok =
    value.trim() !== '' &&
    Number.isFinite(n) &&
    (!rule.integer || Number.isSafeInteger(n)) &&
    (!rule.positive || n > 0) &&
    (rule.min === undefined || n >= rule.min) &&
    (rule.max === undefined || n <= rule.max) &&
    (rule.below === undefined || n < rule.below);
  if (!ok) throw new UsageError(`${flag} must be ${describe(rule)}${rule.note ? ` (${rule.note})` : ''}, got ${JSON.stringify(value)}`);
  return n;
}

export function choiceFlag<T extends string>(flag: string, value: string, allowed: readonly T[]): T;
export function choiceFlag<T extends string>(flag: string, value: string | undefined, allowed: readonly T[]): T | undefined;
export function choiceFlag<T extends string>(flag: string, value: string | undefined, allowed: readonly T[]): T | undefined {
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value)) throw new UsageError(`${flag} must be one of ${allowed.join(', ')}, got ${JSON.stringify(value)}`);
  return value as T;
}

/** Worker threads for the model kernels: more than the machine's cores only makes the threads wait for each other. */
export function threadsFlag(value: string | undefined): number | undefined {
  return numberFlag('--threads', value, { integer: true, min: 1, max: availableParallelism(), note: "this machine's cores" });
}

/** What is at `path`, or undefined when nothing is (a missing folder on the way counts as nothing). */
function statOf(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw err;
  }
}

function writable(flag: string, path: string, what: string): void {
  try {
    accessSync(path, constants.W_OK | constants.X_OK);
  } catch (err) {
    throw new UsageError(`${flag}: cannot write ${what}: ${path} is not writable (${(err as NodeJS.ErrnoException).code})`);
  }
}

/** An output file ("-" is stdout): its folder must exist and be writable, and the path must not be a folder. */
export function outputFileFlag(flag: string, path: string): string {
  if (path === '-') return path;
  if (path.trim() === '') throw new UsageError(`${flag} needs a file name, got ""`);
  const at = statOf(path);
  if (at?.isDirectory()) throw new UsageError(`${flag}: ${path} is a directory, not a file`);
  const folder = dirname(resolve(path));
  const parent = statOf(folder);
  if (!parent) throw new UsageError(`${flag}: cannot write ${path}: the directory ${folder} does not exist`);
  if (!parent.isDirectory()) throw new UsageError(`${flag}: cannot write ${path}: ${folder} is not a directory`);
  writable(flag, folder, path);
  return path;
}

/** An output folder, created later by the command: it must be a writable folder, or the nearest path above it that
 *  exists must be one (nothing is created here, so that a refused command leaves nothing behind). */
export function outputDirFlag(flag: string, path: string): string {
  if (path.trim() === '') throw new UsageError(`${flag} needs a directory, got ""`);
  let at = resolve(path);
  let st = statOf(at);
  if (st && !st.isDirectory()) throw new UsageError(`${flag}: ${path} exists and is not a directory`);
  while (!st) {
    at = dirname(at);
    st = statOf(at);
  }
  if (!st.isDirectory()) throw new UsageError(`${flag}: cannot create ${path}: ${at} is not a directory`);
  writable(flag, at, path);
  return path;
}
