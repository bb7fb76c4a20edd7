// The server's settings, once: ServerConfig, its defaults, the `canvasgym serve` flags and their help, and the table
// in docs/server.md come from this schema.
import { availableParallelism } from 'node:os';
import { z } from 'zod';
import { DEFAULT_MAX_TURNS, MAX_TURNS_LIMIT } from '../diagram/episode.ts';
import { MAX_SEQUENCES } from '../policy/student.ts';
import { RUBRIC_NAMES } from '../diagram/reward/presets.ts';
import { LIMITS } from '../diagram/tasks/limits.ts';

const MIB = 1024 * 1024;
const seconds = () => z.number().min(0.1).max(86_400);

export const ServerSettings = z.object({
  host: z.string().min(1).default('127.0.0.1').describe('address to listen on').meta({ arg: 'host' }),
  port: z.int().min(0).max(65535).default(8000).describe('port (0 picks a free one)'),
  reward: z.enum(RUBRIC_NAMES as [string, ...string[]]).default('strong').describe('default reward preset of /reward and /get_reward (?reward= overrides per request)').meta({ arg: 'preset' }),
  maxBodyBytes: z.int().min(1024).default(8 * MIB).describe('largest request body'),
  maxHeldBodyBytes: z.int().min(1024).default(512 * MIB).describe('most bytes of request bodies held at once, all requests together (past it: 503)'),
  maxJsonDepth: z.int().min(2).max(1000).default(LIMITS.jsonDepth).describe('deepest nesting of arrays and objects in a JSON body'),
  maxConnections: z.int().min(1).max(100_000).default(4096).describe('most connections open at once, also the listen backlog (at the cap, the one waiting longest without a whole request makes room)'),
  headersTimeoutS: seconds().default(10).describe("seconds a client has to send a request's headers").meta({ flag: '--headers-timeout', arg: 's' }),
  requestTimeoutS: seconds().default(30).describe('seconds a client has to send a whole request, headers and body').meta({ flag: '--request-timeout', arg: 's' }),
  apiKey: z.string().optional().describe('bearer token required on every route but /health').meta({ arg: 'key', shownDefault: '$CANVASGYM_API_KEY' }),
  allowOrigins: z.array(z.string()).default([]).describe("browser origins allowed beside loopback pages ('*': any page)").meta({ flag: false }),
  maxBatch: z.int().min(1).default(1024).describe('most rows per /reward or /get_reward request'),
  scoringThreads: z.int().min(0).max(256).default(availableParallelism()).describe('worker threads that score /reward and /get_reward (0: score on the HTTP thread)').meta({ shownDefault: "the machine's cores" }),
  maxSessions: z.int().min(1).default(256).describe('most episodes open at once'),
  sessionTtlS: seconds().default(600).describe('seconds an idle session lives').meta({ flag: '--session-ttl', arg: 's' }),
  maxTurns: z.int().min(1).max(MAX_TURNS_LIMIT).default(DEFAULT_MAX_TURNS).describe('default turn limit of editing episodes'),
  modelId: z.string().min(1).default('canvasgym-student').describe('with --policy: the model id clients ask for').meta({ flag: '--model-name', arg: 'id' }),
  maxN: z.int().min(1).max(256).default(16).describe('with --policy: most completions per chat request'),
  batchWindowMs: z.number().min(0).max(10_000).default(5).describe('with --policy: milliseconds an idle model waits for more requests to decode with the first').meta({ arg: 'ms' }),
  maxSequences: z.int().min(1).max(4096).default(MAX_SEQUENCES).describe('with --policy: most sequences (requests x n) decoded together'),
});

type Limits = { headersTimeoutS: number; requestTimeoutS: number; maxBodyBytes: number; maxHeldBodyBytes: number };

/** The settings with the rules between them, which startServer and `canvasgym serve` both check (a refined schema
 *  can no longer be extended, so it is apart). */
export const CheckedServerSettings = ServerSettings.refine((c) => c.headersTimeoutS <= c.requestTimeoutS, {
  path: ['headersTimeoutS'],
  error: (i) => {
    const c = i.input as Limits;
    return `{headersTimeoutS} (${c.headersTimeoutS} s) must not exceed {requestTimeoutS} (${c.requestTimeoutS} s)`;
  },
}).refine((c) => c.maxHeldBodyBytes >= c.maxBodyBytes, {
  path: ['maxHeldBodyBytes'],
  error: (i) => {
    const c = i.input as Limits;
    return `{maxHeldBodyBytes} (${c.maxHeldBodyBytes}) must be at least {maxBodyBytes} (${c.maxBodyBytes})`;
  },
});
