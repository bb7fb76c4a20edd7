// `canvasgym serve`: the environment as an HTTP service (reward, episodes, OpenRLHF's remote reward) and, with
// --policy, the student behind an OpenAI-compatible endpoint.
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { RUBRIC_NAMES } from '../reward/presets.ts';
import { isLoopbackHost, parseOrigins } from '../server/access.ts';
import { DEFAULT_CONFIG, describeAccess, describeLimits, startServer, type ServerConfig } from '../server/app.ts';
import { MAX_TURNS_LIMIT } from '../env/episode.ts';
import { UsageError } from './usage-error.ts';
import { choiceFlag, numberFlag } from './flags.ts';

interface ServeFlags {
  host: string;
  port: string;
  reward: string;
  maxBodyBytes: string;
  maxHeldBodyBytes: string;
  maxJsonDepth: string;
  maxConnections: string;
  headersTimeout: string;
  requestTimeout: string;
  apiKey?: string;
  allowOrigin?: string;
  maxBatch: string;
  maxSessions: string;
  sessionTtl: string;
  maxTurns: string;
  policy?: string;
  structuredOutput?: boolean;
  modelName: string;
  maxN: string;
  batchWindowMs: string;
  maxSequences: string;
  scoringThreads: string;
}

const integer = (flag: string, value: string, min: number, max?: number) => numberFlag(flag, value, { integer: true, min, max });

/** Files the process needs beside its connections: modules, scoring threads, the model, stdio. */
const FILES_BESIDE_CONNECTIONS = 256;

/** The soft limit on open files (Linux; node raises it to the hard limit at start), or undefined where unknown. */
function openFileLimit(): number | undefined {
  try {
    const line = readFileSync('/proc/self/limits', 'utf8').split('\n').find((l) => l.startsWith('Max open files'));
    const soft = Number(line?.split(/\s{2,}/)[1]);
    return Number.isFinite(soft) ? soft : undefined;
  } catch {
    return undefined;
  }
}

export function registerServe(cmd: Command): void {
  const d = DEFAULT_CONFIG;
  cmd
    .option('--host <host>', 'address to listen on', d.host)
    .option('--port <n>', 'port (0 picks a free one)', String(d.port))
    .option('--reward <preset>', `default reward preset: ${RUBRIC_NAMES.join(' | ')} (?reward= overrides per request)`, d.reward)
    .option('--max-body-bytes <n>', 'largest request body', String(d.maxBodyBytes))
    .option('--max-held-body-bytes <n>', 'most bytes of request bodies held at once, all requests together (past it: 503)', String(d.maxHeldBodyBytes))
    .option('--max-json-depth <n>', 'deepest nesting of arrays and objects in a JSON body', String(d.maxJsonDepth))
    .option('--max-connections <n>', 'most connections open at once (at the cap, the one waiting longest without a whole request makes room)', String(d.maxConnections))
    .option('--headers-timeout <s>', "seconds a client has to send a request's headers", String(d.headersTimeoutS))
    .option('--request-timeout <s>', 'seconds a client has to send a whole request, headers and body', String(d.requestTimeoutS))
    .option('--api-key <key>', 'bearer token required on every route but /health (default: $CANVASGYM_API_KEY)')
    .option('--allow-origin <origins>', "comma-separated browser origins allowed beside loopback pages, e.g. https://app.example.com ('*': any page)")
    .option('--max-batch <n>', 'most rows per /reward or /get_reward request', String(d.maxBatch))
    .option('--max-sessions <n>', 'most episodes open at once', String(d.maxSessions))
    .option('--session-ttl <s>', 'seconds an idle session lives', String(d.sessionTtlS))
    .option('--max-turns <n>', 'default turn limit of editing episodes', String(d.maxTurns))
    .option('--policy <ckpt>', 'student checkpoint directory to serve on /v1/chat/completions and /v1/completions')
    .option('--structured-output', "with --policy: guided decoding, every answer in the seed's action language (create_shape, connect) with arrows between shapes it created")
    .option('--model-name <id>', 'model id clients ask for', d.modelId)
    .option('--max-n <n>', 'most completions per chat request', String(d.maxN))
    .option('--scoring-threads <n>', 'worker threads that score /reward and /get_reward (0: score on the HTTP thread)', String(d.scoringThreads))
    .option('--batch-window-ms <ms>', 'with --policy: how long an idle model waits for more requests to decode with the first', String(d.batchWindowMs))
    .option('--max-sequences <n>', 'with --policy: most sequences (requests x n) decoded together', String(d.maxSequences))
    .action(async (flags: ServeFlags) => {
      choiceFlag('--reward', flags.reward, RUBRIC_NAMES);
      const apiKey = flags.apiKey ?? (process.env.CANVASGYM_API_KEY || undefined);
      if (apiKey !== undefined && apiKey.trim() === '') throw new UsageError('--api-key must not be empty');
      let allowOrigins: string[] = [];
      try {
        allowOrigins = parseOrigins((flags.allowOrigin ?? '').split(',').map((o) => o.trim()).filter(Boolean));
      } catch (err) {
        throw new UsageError(`--allow-origin: ${(err as Error).message}`);
      }
      const headersTimeoutS = numberFlag('--headers-timeout', flags.headersTimeout, { min: 0.1, max: 86_400 });
      const requestTimeoutS = numberFlag('--request-timeout', flags.requestTimeout, { min: 0.1, max: 86_400 });
      if (headersTimeoutS > requestTimeoutS) throw new UsageError(`--headers-timeout (${headersTimeoutS} s) must not exceed --request-timeout (${requestTimeoutS} s)`);
      const config: ServerConfig = {
        ...DEFAULT_CONFIG,
        host: flags.host,
        port: integer('--port', flags.port, 0, 65535),
        reward: flags.reward,
        maxBodyBytes: integer('--max-body-bytes', flags.maxBodyBytes, 1024),
        maxHeldBodyBytes: integer('--max-held-body-bytes', flags.maxHeldBodyBytes, 1024),
        maxJsonDepth: integer('--max-json-depth', flags.maxJsonDepth, 2, 1000),
        maxConnections: integer('--max-connections', flags.maxConnections, 1, 100_000),
        headersTimeoutS,
        requestTimeoutS,
        apiKey,
        allowOrigins,
        maxBatch: integer('--max-batch', flags.maxBatch, 1),
        maxSessions: integer('--max-sessions', flags.maxSessions, 1),
        sessionTtlS: integer('--session-ttl', flags.sessionTtl, 1),
        maxTurns: integer('--max-turns', flags.maxTurns, 1, MAX_TURNS_LIMIT),
        modelId: flags.modelName,
        maxN: integer('--max-n', flags.maxN, 1, 256),
        batchWindowMs: numberFlag('--batch-window-ms', flags.batchWindowMs, { min: 0, max: 10_000 }),
        maxSequences: integer('--max-sequences', flags.maxSequences, 1, 4096),
        scoringThreads: integer('--scoring-threads', flags.scoringThreads, 0, 256),
      };
      if (config.maxHeldBodyBytes < config.maxBodyBytes) throw new UsageError(`--max-held-body-bytes (${config.maxHeldBodyBytes}) must be at least --max-body-bytes (${config.maxBodyBytes})`);
      if (flags.structuredOutput && flags.policy === undefined) throw new UsageError('--structured-output applies to the student: give --policy CKPT');
      if (flags.policy !== undefined) {
        const { StudentPolicy } = await import('../policy/student.ts');
        try {
          config.policy = await StudentPolicy.load(flags.policy, { structuredOutput: flags.structuredOutput });
        } catch (err) {
          throw new UsageError(`--policy: cannot load a student checkpoint from ${flags.policy}: ${(err as Error).message}`);
        }
      }
      let running;
      try {
        running = await startServer(config);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        throw new UsageError(`cannot listen on ${flags.host}:${flags.port}: ${code ?? (err as Error).message}`);
      }
      const files = openFileLimit();
      if (files !== undefined && files < running.config.maxConnections + FILES_BESIDE_CONNECTIONS) {
        process.stderr.write(
          `canvasgym serve: warning: this process may open ${files} files (ulimit -n) but --max-connections is ${running.config.maxConnections}: past about ${files - FILES_BESIDE_CONNECTIONS} connections new ones fail before the cap can make room; raise ulimit -n or lower --max-connections\n`,
        );
      }
      const limits = describeLimits(running.config);
      const access = describeAccess(running.config);
      if (!isLoopbackHost(flags.host) && !apiKey) {
        process.stderr.write(
          `canvasgym serve: warning: listening on ${flags.host}, beyond loopback, without --api-key: anyone who can reach this address can score, open sessions${config.policy ? ' and use the model' : ''}; pass --api-key KEY (or set CANVASGYM_API_KEY)\n`,
        );
      }
      process.stdout.write(
        `canvasgym serve: listening on ${running.url}\n` +
          `  reward preset: ${running.config.reward}\n` +
          `  limits: ${Object.entries(limits).map(([k, v]) => `${k}=${v}`).join(' ')}\n` +
          `  access: ${access.api_key ? 'bearer token required (--api-key), /health open' : 'no api key'}; browser pages from ${access.browser_origins.join(', ')}\n` +
          (config.policy ? `  model: ${running.config.modelId} (${flags.policy}) on /v1/chat/completions and /v1/completions\n` : '') +
          `  routes: GET /health /schema /state, POST /reward /get_reward /reset /step /close${config.policy ? ', GET /v1/models, POST /v1/chat/completions /v1/completions' : ''}\n`,
      );
      const stop = () => {
        process.stdout.write('canvasgym serve: shutting down\n');
        void running.close().then(async () => {
          await config.policy?.close?.();
          process.exit(0);
        });
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
}
