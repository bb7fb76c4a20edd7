// The `canvasgym` command line. Each command lives in its own module and registers itself here.
import { readFileSync } from 'node:fs';
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
import { choiceFlag } from './flags.ts';
import { BACKENDS, loadNative, setDefaultBackend } from '../model/kernels-native.ts';

const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

/** A message as the one line a refusal prints: what it quotes from the user's input may hold line breaks. */
const oneLine = (message: string) => message.trim().replace(/\s*\n\s*/g, ' ');

export function buildProgram(): Command {
  const program = new Command('canvasgym')
    .description('Train LLM agents from first principles: a text-to-diagram environment, rewards, teacher data, SFT and GRPO.')
    .version(version);
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
  // The student's compute backend (src/model/kernels.ts) on every command that runs it, set before the command runs.
  for (const cmd of program.commands) {
    if (!['sft', 'grpo', 'eval', 'run', 'serve'].includes(cmd.name())) continue;
    cmd.option('--backend <backend>', `model compute backend: ${BACKENDS.join(' | ')} (default: native where it is built, else wasm; $CANVASGYM_BACKEND)`);
  }
  program.hook('preAction', (_program, command) => {
    const flag = command.opts().backend as string | undefined;
    const backend = flag === undefined ? undefined : choiceFlag('--backend', flag, BACKENDS);
    const native = backend === 'native' ? loadNative() : undefined;
    if (native && 'error' in native) throw new UsageError(`--backend native is not available here: ${native.error}`);
    setDefaultBackend(backend);
  });
  // A mistyped command line gets one line, as every other usage error does: commander's message (with its "did you
  // mean" suggestion) and where the full help is, not the help itself.
  for (const cmd of [program, ...program.commands]) {
    const help = cmd === program ? 'canvasgym --help' : `canvasgym ${cmd.name()} --help`;
    cmd.exitOverride().configureOutput({
      outputError: (message, write) => write(`canvasgym: ${oneLine(message.replace(/^error: /, ''))}; see ${help}\n`),
    });
  }
  return program;
}

/** A problem with what the user asked for (bad flag value, missing file): printed as one line, exit code 2. */
export class UsageError extends Error {}

/** The line printed for an error that is the user's to fix, or undefined for a bug (which keeps its stack trace). */
function usageMessage(err: unknown): string | undefined {
  if (err instanceof UsageError) return err.message;
  // The system refusing a path (permissions, a full disk, a file where a folder should be) after the up-front checks
  // passed: Node's message names the call, the reason and the path, which is all the user needs.
  const e = err as NodeJS.ErrnoException;
  if (e instanceof Error && typeof e.code === 'string' && typeof e.syscall === 'string' && typeof e.path === 'string') return e.message;
  return undefined;
}

/** Parses and runs one command line; returns its exit code, after printing a usage problem as one line. */
export async function runCli(argv: string[]): Promise<number> {
  try {
    await buildProgram().parseAsync(argv);
    return 0;
  } catch (err) {
    // Commander has printed its line already (or the help or version, which exit 0).
    if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : 2;
    const message = usageMessage(err);
    if (message === undefined) throw err;
    process.stderr.write(`canvasgym: ${oneLine(message)}\n`);
    return 2;
  }
}

export async function main(argv: string[]): Promise<void> {
  // A reader that stops early (`canvasgym score ... | head -1`) closes the pipe: what is left to write has nowhere to
  // go, which is not a failure of the command.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EPIPE') process.exit(0);
      throw err;
    });
  }
  const code = await runCli(argv);
  // Success leaves the process to end on its own (serve keeps listening); a failure ends it now, workers and all.
  if (code !== 0) process.exit(code);
}
