import type { Command } from 'commander';
import { DEFAULT_MAX_ACTIONS, responseJsonSchema } from '../env/actions.ts';
import { numberFlag } from './flags.ts';

export function registerSchema(cmd: Command): void {
  cmd
    .option('--editing', 'include the editing actions (update_shape, delete_shape, disconnect) used in multi-turn episodes')
    .option('--max-actions <n>', 'maximum actions per response', String(DEFAULT_MAX_ACTIONS))
    .action((opts: { editing?: boolean; maxActions: string }) => {
      // A schema with no room for an action is one no response can satisfy.
      const maxActions = numberFlag('--max-actions', opts.maxActions, { integer: true, positive: true });
      process.stdout.write(JSON.stringify(responseJsonSchema({ editing: opts.editing, maxActions }), null, 2) + '\n');
    });
}
