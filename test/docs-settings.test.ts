// Settings are stated once, in zod schemas: every flag of every command and its help line come from one (through
// src/cli/settings-flags.ts), and the tables in docs/ are generated from them (scripts/docs-settings.ts). A page whose
// table differs from its schema fails here; `npm run docs:settings` rewrites it.
import { readFileSync } from 'node:fs';
import type { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { PAGES, pageUrl, renderPage, settingsTable, TABLES } from '../scripts/docs-settings.ts';
import { buildProgram } from '../src/cli/main.ts';
import { helpOf } from '../src/cli/settings-flags.ts';
import { JUDGE_CACHES, judgeSettings } from '../src/cli/judge-settings.ts';
import { defaultOf, flagOf, kindOf } from '../src/settings.ts';
import { GRPO_DEFAULTS } from '../src/train/grpo-settings.ts';
import { PRESET_DEFAULTS } from '../src/train/sft-settings.ts';

describe('the settings tables in the docs', () => {
  it.each(PAGES)('%s holds the tables its schemas give', (page) => {
    const text = readFileSync(pageUrl(page), 'utf8');
    expect(renderPage(page, text), `${page} differs from its settings schemas: run npm run docs:settings`).toBe(text);
  });

  it("a row says the setting's flag, name, default, each preset's where it differs, rule and meaning", () => {
    const grpo = settingsTable(TABLES.find((t) => t.name === 'grpo')!);
    expect(grpo).toContain(`| \`--learning-rate\` | \`learning_rate\` | ${GRPO_DEFAULTS.learning_rate} | a positive number | peak learning rate |`);
    expect(grpo).toContain('| `--no-mask-truncated-completions` | `mask_truncated_completions` | true |');
    const sft = settingsTable(TABLES.find((t) => t.name === 'sft')!);
    const { tiny, large } = { tiny: PRESET_DEFAULTS.tiny, large: PRESET_DEFAULTS.large };
    expect(sft).toContain(`| \`--learning-rate\` | \`learning_rate\` | ${PRESET_DEFAULTS.default.learning_rate} | ${tiny.learning_rate} | ${large.learning_rate} | a positive number |`);
    // The same as the default preset's: left blank.
    expect(sft).toContain(`| \`--warmup-ratio\` | \`warmup_ratio\` | ${PRESET_DEFAULTS.default.warmup_ratio} |  |  | a number in [0, 1) |`);
  });

  it('a page without the markers of its table is refused, naming both', () => {
    expect(() => renderPage('docs/grpo.md', '# GRPO\n')).toThrow(/^docs\/grpo\.md has no <!-- settings:grpo .* for the grpo settings$/);
  });
});

describe('every flag comes from a settings schema', () => {
  // Every schema a command's flags come from: the tables', and the judge's as each command gives it.
  const schemas = [...TABLES, ...Object.values(JUDGE_CACHES).map((where) => ({ schema: judgeSettings(where), variants: undefined }))];
  const fields = schemas.flatMap((t) => (Object.entries(t.schema.shape) as [string, z.ZodType][]).map(([key, field]) => ({ key, field, variants: t.variants })));

  it('with the help line of its setting: the description, the rule and the default', async () => {
    const program = await buildProgram();
    for (const name of program.commands.map((c) => c.name())) {
      const cmd = (await buildProgram(['node', 'canvasgym', name])).commands.find((c) => c.name() === name)!;
      for (const option of cmd.options) {
        const from = fields.filter(({ key, field }) => {
          const flag = flagOf(key, field);
          return flag !== undefined && option.long === (kindOf(field) === 'boolean' && defaultOf(field) === true ? `--no-${flag.slice(2)}` : flag);
        });
        expect(from.length, `${name} ${option.long}`).toBeGreaterThan(0);
        expect(from.map(({ key, field, variants }) => helpOf(key, field, variants)), `${name} ${option.long}`).toContain(option.description);
      }
    }
  });
});
