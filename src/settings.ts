// Settings are zod objects: each field carries its bounds, its default and a `.describe()` text, and `.meta()` says
// how it shows on the command line. What checks or shows a setting (the CLI's flags and help, the trainers' config
// checks, the docs' tables) reads it from here, so that a rule is stated once and said the same way everywhere.
import { availableParallelism } from 'node:os';
import { z } from 'zod';

/** Threads a command uses when not told: the models here use 2 well, and more than the machine's cores only makes the
 *  threads wait for each other. */
export const DEFAULT_THREADS = Math.min(2, availableParallelism());

/** A threads setting (the trainers' kernels, score's scoring threads), bounded by the machine's cores. */
export const threadsSetting = (what: string) =>
  z
    .int()
    .min(1)
    .max(availableParallelism())
    .optional()
    .describe(what)
    .meta({ note: "this machine's cores", shownRule: "an integer from 1 to the machine's cores", shownDefault: '2, or 1 on one core', arg: 'n' });

/** How a setting shows outside its schema (its `.meta()`). */
export interface SettingMeta {
  /** The flag, when it is not `--` and the key in kebab case; false: a setting of the library only. */
  flag?: string | false;
  /** The value's name in the help (`--out <dir>`). */
  arg?: string;
  /** Why the bounds are what they are, said after them. */
  note?: string;
  /** The default as help and docs say it, where the value depends on the machine or on the command. */
  shownDefault?: string;
  /** The rule as the docs say it, where a bound depends on the machine. */
  shownRule?: string;
  /** How the choices are listed in the rule: "one of a, b, c" unless "a or b or c" ('or') or "a, b, c" ('list'). */
  choices?: 'or' | 'list';
  /** For a setting the command needs but the schema cannot default: what it is, said after "--flag is required: ". */
  required?: string;
}

export type Settings = z.ZodObject<z.ZodRawShape>;
type Field = z.ZodType;

export const metaOf = (field: Field): SettingMeta => (field.meta() ?? {}) as SettingMeta;

/** The flag of a setting: `--` and the key in kebab case (snake_case or camelCase keys), unless the meta names one. */
export function flagOf(key: string, field: Field): string | undefined {
  const { flag } = metaOf(field);
  if (flag === false) return undefined;
  return flag ?? `--${key.replace(/_/g, '-').replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
}

interface Shape {
  type?: string;
  enum?: string[];
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  items?: Shape;
}

/** The field as JSON Schema: zod's public account of its type and bounds. */
export function shapeOf(field: Field): Shape {
  return z.toJSONSchema(field, { io: 'input', unrepresentable: 'any' }) as Shape;
}

export type Kind = 'integer' | 'number' | 'boolean' | 'choice' | 'list' | 'text';

export function kindOf(field: Field): Kind {
  const s = shapeOf(field);
  if (s.enum) return 'choice';
  if (s.type === 'integer' || s.type === 'number' || s.type === 'boolean') return s.type;
  if (s.type === 'array') return 'list';
  return 'text';
}

// z.int() states the safe range as its bounds; a rule says only the bounds a setting chose.
const chosen = (v: number | undefined) => (v === undefined || Math.abs(v) === Number.MAX_SAFE_INTEGER ? undefined : v);

/** The rule a value must follow, as "... must be <rule>" ends: "an integer >= 2", "a number in [0, 1)", "one of a, b". */
export function ruleOf(field: Field): string {
  const s = shapeOf(field);
  if (s.enum) {
    const how = metaOf(field).choices;
    return how === 'or' ? s.enum.join(' or ') : how === 'list' ? s.enum.join(', ') : `one of ${s.enum.join(', ')}`;
  }
  if (s.type === 'boolean') return 'true or false';
  if (s.type === 'array') return s.items?.enum ? `a list of ${s.items.enum.join(', ')}` : 'a list';
  if (s.type !== 'integer' && s.type !== 'number') return 'text';
  const kind = s.type === 'integer' ? 'an integer' : 'a number';
  const [min, max, below] = [chosen(s.minimum), chosen(s.maximum), s.exclusiveMaximum];
  const positive = s.exclusiveMinimum === 0;
  if (positive && max !== undefined) return `${kind} in (0, ${max}]`;
  if (positive) return s.type === 'integer' ? 'a positive integer' : 'a positive number';
  if (min !== undefined && below !== undefined) return `${kind} in [${min}, ${below})`;
  if (min !== undefined && max !== undefined) return `${kind} from ${min} to ${max}`;
  if (min !== undefined) return `${kind} >= ${min}`;
  if (max !== undefined) return `${kind} <= ${max}`;
  return kind;
}

/** The rule with its reason: what a refusal says after "must be". */
export function ruleWithNote(field: Field): string {
  const { note } = metaOf(field);
  return `${ruleOf(field)}${note ? ` (${note})` : ''}`;
}

/** The field's default, or undefined when it has none (optional or required). */
export function defaultOf(field: Field): unknown {
  const r = field.safeParse(undefined);
  return r.success ? r.data : undefined;
}

/** Every default of a schema: what a config built from nothing but the required settings holds. */
export function defaultsOf<S extends Settings>(schema: S): { [K in keyof z.infer<S>]?: z.infer<S>[K] } {
  return Object.fromEntries(Object.entries(schema.shape).map(([k, f]) => [k, defaultOf(f as Field)]).filter(([, v]) => v !== undefined));
}

export const isRequired = (field: Field) => !field.safeParse(undefined).success;

/** A default as help and docs show it. */
export function shownDefault(field: Field, value: unknown = defaultOf(field)): string | undefined {
  const { shownDefault: shown } = metaOf(field);
  if (shown !== undefined) return shown;
  if (value === undefined) return undefined;
  return Array.isArray(value) ? value.join(',') : String(value);
}

/**
 * The first thing wrong with `value` as these settings, as one line naming the setting by `nameOf` (a config key, or
 * its flag), or undefined when nothing is. A value outside its field's rule reads "<name> must be <rule>, got <value>";
 * a schema's own refinement speaks for itself, naming a setting as `{key}` where the library and the command line
 * call it differently.
 */
export function settingsIssue(schema: Settings, value: unknown, nameOf: (key: string) => string, given: (key: string) => unknown = (k) => (value as Record<string, unknown>)[k]): string | undefined {
  const r = schema.safeParse(value);
  if (r.success) return undefined;
  const issue = r.error.issues[0];
  const key = String(issue.path[0] ?? '');
  const field = schema.shape[key] as Field | undefined;
  if (issue.code === 'custom' || !field) return issue.message.replace(/\{(\w+)\}/g, (named, k: string) => (k in schema.shape ? nameOf(k) : named));
  const got = given(key);
  if (got === undefined) return `${nameOf(key)} is required`;
  return `${nameOf(key)} must be ${ruleWithNote(field)}, got ${JSON.stringify(got)}`;
}

/** The values of `schema`'s settings among `values` (a command's settings hold more than its library's). */
export function pickSettings<S extends Settings, V extends Partial<z.infer<S>>>(schema: S, values: V): Pick<V, keyof z.infer<S> & keyof V> {
  return Object.fromEntries(Object.keys(schema.shape).filter((k) => k in values).map((k) => [k, values[k as keyof V]])) as Pick<V, keyof z.infer<S> & keyof V>;
}
