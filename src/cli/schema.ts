import type { Command } from 'commander';
import { responseJsonSchema } from '../diagram/language/actions.ts';
import { SchemaSettings } from './schema-settings.ts';
import { addSettingFlags, readSettings } from './settings-flags.ts';

export function registerSchema(cmd: Command): void {
  addSettingFlags(cmd, SchemaSettings).action((opts: Record<string, unknown>) => {
    const s = readSettings(SchemaSettings, opts);
    process.stdout.write(JSON.stringify(responseJsonSchema({ editing: s.editing, maxActions: s.max_actions }), null, 2) + '\n');
  });
}
