// A command's flags from its settings schema (src/settings.ts): one flag per setting, its help the setting's
// description, rule and default; a value given on the command line is checked by the same schema the library checks
// a config with, and a bad one is a UsageError naming the flag, the rule and what was given.
import { Option, type Command } from 'commander';
import type { z } from 'zod';
import { defaultOf, flagOf, isRequired, kindOf, metaOf, ruleOf, ruleWithNote, settingsIssue, shownDefault, type Settings } from '../settings.ts';
import { UsageError } from './usage-error.ts';

/** Defaults that another flag picks (sft's presets), by its value: shown in the help beside the schema's own. */
export type Variants = Record<string, Record<string, unknown>>;

interface Flag {
  key: string;
  field: z.ZodType;
  option: Option;
  /** A setting on by default, turned off with `--no-x`: commander sets it true whenever the flag is defined. */
  negated: boolean;
}

const PLACEHOLDER = { integer: 'n', number: 'x', choice: 'name', list: 'values', text: 'value', boolean: '' } as const;

function flagsOf(schema: Settings, variants: Variants = {}): Flag[] {
  const flags: Flag[] = [];
  for (const [key, field] of Object.entries(schema.shape) as [string, z.ZodType][]) {
    const flag = flagOf(key, field);
    if (!flag) continue;
    const kind = kindOf(field);
    const arg = metaOf(field).arg ?? PLACEHOLDER[kind];
    const negated = kind === 'boolean' && defaultOf(field) === true;
    const spec = kind === 'boolean' ? (negated ? `--no-${flag.slice(2)}` : flag) : `${flag} <${arg}${kind === 'list' ? '...' : ''}>`;
    const option = new Option(spec, helpOf(key, field, variants));
    if (isRequired(field) && metaOf(field).required === undefined) option.makeOptionMandatory();
    flags.push({ key, field, option, negated });
  }
  return flags;
}

/** The help line: the description, then the rule and the default (and each variant's where it differs). */
export function helpOf(key: string, field: z.ZodType, variants: Variants = {}): string {
  const kind = kindOf(field);
  const description = field.description ?? '';
  if (kind === 'boolean') return defaultOf(field) === true ? `turns off: ${description}` : description;
  const said = [kind === 'text' || kind === 'list' ? undefined : (metaOf(field).shownRule ?? ruleOf(field))];
  const own = shownDefault(field);
  if (own !== undefined) said.push(`default ${own}`);
  for (const [name, values] of Object.entries(variants)) {
    if (key in values && values[key] !== defaultOf(field)) said.push(`${name}: ${shownDefault(field, values[key])}`);
  }
  const extra = said.filter(Boolean).join('; ');
  return extra ? `${description} (${extra})` : description;
}

/** Adds the settings' flags to the command. */
export function addSettingFlags(cmd: Command, schema: Settings, variants?: Variants): Command {
  for (const { option } of flagsOf(schema, variants)) cmd.addOption(option);
  return cmd;
}

/** What the command line says as text, as the setting's type: a number, a boolean, a list, or the text itself. */
function fromText(field: z.ZodType, raw: unknown): unknown {
  const kind = kindOf(field);
  if ((kind === 'integer' || kind === 'number') && typeof raw === 'string') return raw.trim() === '' ? NaN : Number(raw);
  return raw;
}

/**
 * The settings the command line gives (commander's options object), each checked by its field; a flag left out (a
 * `--no-x` flag not given included) is left out, so that a default (the schema's, or a preset's) applies. A required
 * setting whose meta says what it is is named when missing; others are commander's to require.
 */
export function givenSettings<S extends Settings>(schema: S, opts: object): Partial<z.infer<S>> {
  const given: Record<string, unknown> = {};
  for (const { key, field, option, negated } of flagsOf(schema)) {
    const raw = (opts as Record<string, unknown>)[option.attributeName()];
    // A `--no-x` flag is given only as false: the true commander puts there is its default, not the user's.
    if (negated && raw === true) continue;
    if (raw === undefined) {
      const { required } = metaOf(field);
      if (required !== undefined) throw new UsageError(`${option.long} is required: ${required}`);
      continue;
    }
    const parsed = field.safeParse(fromText(field, raw));
    if (!parsed.success) throw new UsageError(`${option.long} must be ${ruleWithNote(field)}, got ${JSON.stringify(raw)}`);
    given[key] = parsed.data;
  }
  return given as Partial<z.infer<S>>;
}

/** Every setting: the command line's, the schema's defaults for the rest, and the schema's rules between settings. */
export function readSettings<S extends Settings>(schema: S, opts: object): z.infer<S> {
  const given = givenSettings(schema, opts);
  const flags = new Map(flagsOf(schema).map((f) => [f.key, f.option]));
  const issue = settingsIssue(schema, given, (key) => flags.get(key)?.long ?? key, (key) => (opts as Record<string, unknown>)[flags.get(key)?.attributeName() ?? key]);
  if (issue) throw new UsageError(issue);
  return schema.parse(given);
}
