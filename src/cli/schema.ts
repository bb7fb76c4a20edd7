import type { Command } from 'commander';
import { responseJsonSchema } from '../env/actions.ts';

export function registerSchema(program: Command): void {
  program
    .command('schema')
    .description('print the JSON Schema of the response object {"actions": [...]} sent to models for structured output')
    .option('--editing', 'include the editing actions (update_shape, delete_shape, disconnect) used in multi-turn episodes')
    .option('--max-actions <n>', 'maximum actions per response', (v) => Number(v), 40)
    .action((opts: { editing?: boolean; maxActions: number }) => {
      process.stdout.write(JSON.stringify(responseJsonSchema({ editing: opts.editing, maxActions: opts.maxActions }), null, 2) + '\n');
    });
}
