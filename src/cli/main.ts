// The `canvasgym` command line. Each command lives in its own module, loaded only when that command runs (or shows
// its help): what a command imports (the model, tldraw's Chromium driver, the reward) would otherwise cost every
// command, `canvasgym --help` included, seconds of start-up.
import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { CheckpointError } from '../model/checkpoint-error.ts';
import { UsageError } from './usage-error.ts';

const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

/** A message as the one line a refusal prints: what it quotes from the user's input may hold line breaks. */
const oneLine = (message: string) => message.trim().replace(/\s*\n\s*/g, ' ');

interface CommandEntry {
  name: string;
  /** The line `canvasgym --help` lists, and the command's own description. */
  description: string;
  /** The command's options and action. */
  load: () => Promise<(cmd: Command) => void>;
  /** Whether it runs the student, whose compute backend `--backend` picks (src/model/kernels.ts). */
  backend?: true;
}

const COMMANDS: CommandEntry[] = [
  { name: 'schema', description: 'print the JSON Schema of the response object {"actions": [...]} sent to models for structured output', load: async () => (await import('./schema.ts')).registerSchema },
  { name: 'serve', description: 'serve the environment over HTTP: /reward, /get_reward (OpenRLHF), /reset /step /state /close (sessions), /schema, /health; with --policy also /v1/chat/completions and /v1/completions', load: async () => (await import('./serve.ts')).registerServe, backend: true },
  { name: 'teacher', description: 'generate teacher data: sample attempts per task, score them, keep the good ones in DIR/train.jsonl (resumable)', load: async () => (await import('./teacher.ts')).registerTeacher },
  { name: 'score', description: 'score JSONL rows {"prompt", "completion", "spec"?} with a reward preset; writes each row back with reward, components and errors', load: async () => (await import('./score.ts')).registerScore },
  { name: 'render', description: 'draw a completion (raw model text, {"actions": [...]}, or a record with a "completion" field) as SVG or PNG', load: async () => (await import('./render.ts')).registerRender },
  { name: 'sft', description: 'train the student GPT from scratch on teacher traces: loss on assistant tokens, held-out loss and sampled evaluation, checkpoints', load: async () => (await import('./sft.ts')).registerSft, backend: true },
  { name: 'tasks', description: 'write diagram tasks ({"id", "prompt", "spec"}) as JSONL, or print the suite\'s statistics with --stats', load: async () => (await import('./tasks.ts')).registerTasks },
  { name: 'grpo', description: 'GRPO from a student checkpoint: sample groups, score them in the environment, clipped updates with a KL to the start', load: async () => (await import('./grpo.ts')).registerGrpo, backend: true },
  { name: 'eval', description: 'evaluate a policy on tasks: metrics with 95% intervals, rollouts, a PNG per diagram and report.html; or compare eval directories', load: async () => (await import('./eval.ts')).registerEval, backend: true },
  { name: 'inspect', description: 'browse runs in a local web app: every stage\'s rollouts, filtered, one by one with canvas and reward components, compared, exported, opened in tldraw', load: async () => (await import('./inspect.ts')).registerInspect },
  { name: 'run', description: 'the main job: tasks -> scripted teacher with quirks -> SFT -> GRPO -> eval of baselines, teacher, SFT and GRPO on IID held-out and out-of-distribution tasks -> report.html', load: async () => (await import('./run.ts')).registerRun, backend: true },
];

/** The command a command line runs (`canvasgym help X` shows X's help): the first word, as the program has no option
 *  that takes a value. */
function commandOf(argv: string[]): string | undefined {
  const words = argv.slice(2).filter((a) => !a.startsWith('-'));
  return words[0] === 'help' ? words[1] : words[0];
}

/** The program, with every command fully defined, or with only the one `argv` runs (the others are listed by name and
 *  description, for the help and for "did you mean"). */
export async function buildProgram(argv?: string[]): Promise<Command> {
  const program = new Command('canvasgym')
    .description('Train LLM agents from first principles: a text-to-diagram environment, rewards, teacher data, SFT and GRPO.')
    .version(version);
  const wanted = argv && commandOf(argv);
  for (const entry of COMMANDS) {
    const cmd = program.command(entry.name).description(entry.description);
    if (argv && entry.name !== wanted) continue;
    (await entry.load())(cmd);
    if (entry.backend) await addBackendOption(cmd);
  }
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

/** `--backend`, set before the command runs. */
async function addBackendOption(cmd: Command): Promise<void> {
  const [{ loadNative, setDefaultBackend }, { BackendSettings }, { addSettingFlags, readSettings }] = await Promise.all([
    import('../model/kernels-native.ts'),
    import('./backend-settings.ts'),
    import('./settings-flags.ts'),
  ]);
  addSettingFlags(cmd, BackendSettings);
  cmd.hook('preAction', () => {
    const { backend } = readSettings(BackendSettings, cmd.opts());
    const native = backend === 'native' ? loadNative() : undefined;
    if (native && 'error' in native) throw new UsageError(`--backend native is not available here: ${native.error}`);
    setDefaultBackend(backend);
  });
}

/** The line printed for an error that is the user's to fix, or undefined for a bug (which keeps its stack trace). */
function usageMessage(err: unknown): string | undefined {
  if (err instanceof UsageError) return err.message;
  if (err instanceof CheckpointError) return err.message;
  // The system refusing a path (permissions, a full disk, a file where a folder should be) after the up-front checks
  // passed: Node's message names the call, the reason and the path, which is all the user needs.
  const e = err as NodeJS.ErrnoException;
  if (e instanceof Error && typeof e.code === 'string' && typeof e.syscall === 'string' && typeof e.path === 'string') return e.message;
  return undefined;
}

/** Parses and runs one command line; returns its exit code, after printing a usage problem as one line. */
export async function runCli(argv: string[]): Promise<number> {
  try {
    await (await buildProgram(argv)).parseAsync(argv);
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
