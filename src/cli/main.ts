// The `canvasgym` command line. Each command lives in its own module and registers itself here.
import { Command, CommanderError } from 'commander';
import { registerSchema } from './schema.ts';
import { registerServe } from './serve.ts';
import { registerTeacher } from './teacher.ts';
import { registerScore } from './score.ts';
import { registerRender } from './render.ts';
import { registerSft } from './sft.ts';
import { registerTasks } from './tasks.ts';
import { registerGrpo } from './grpo.ts';
import { registerEval } from './eval.ts';
import { registerRun } from './run.ts';

export function buildProgram(): Command {
  const program = new Command('canvasgym')
    .description('Train LLM agents from first principles: a text-to-diagram environment, rewards, teacher data, SFT and GRPO.')
    .showHelpAfterError();
  registerSchema(program);
  registerServe(program);
  registerTeacher(program);
  registerScore(program);
  registerRender(program);
  registerSft(program);
  registerTasks(program);
  registerGrpo(program);
  registerEval(program);
  registerRun(program);
  return program;
}

export async function main(argv: string[]): Promise<void> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) process.exit(err.exitCode);
    if (err instanceof UsageError) {
      process.stderr.write(`canvasgym: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
}

/** A problem with what the user asked for (bad flag value, missing file): printed as one line, exit code 2. */
export class UsageError extends Error {}
