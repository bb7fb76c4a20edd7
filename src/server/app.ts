// The canvasgym HTTP server (node:http: the routes are few and a framework would add nothing but a dependency).
// Reward scoring, Gymnasium-style episodes in sessions, OpenRLHF's remote reward, and, with a policy, OpenAI-compatible
// chat and text completions. Every bad request gets a 4xx naming the problem, whatever its bytes; limits are set at start.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { z } from 'zod';
import { responseJsonSchema } from '../diagram/language/actions.ts';
import { EDITING_SYSTEM_PROMPT, editingActionJsonSchema } from '../editing/episode.ts';
import { EPISODE_NAMES, observationJsonSchema, type EpisodeName } from '../diagram/episode.ts';
import { EpisodeError, type StepAction } from '../environment/env.ts';
import { makeEpisode } from './episodes.ts';
import { SYSTEM_PROMPT } from '../diagram/language/prompt.ts';
import type { Policy } from '../policy/policy.ts';
import { RUBRIC_NAMES } from '../diagram/reward/presets.ts';
import { Access, requireJsonBody } from './access.ts';
import { ConnectionGuard } from './connections.ts';
import { BodyBudget, bodyObject, HttpError, isObject, readBody, readJson, requireField, sendError, sendJson, sendJsonBytes } from './http.ts';
import { ChatService, Streamed } from './openai.ts';
import { ScoringPool } from './pool.ts';
import { rubricByName, stripEndTokens } from './reward.ts';
import type { ScoreRoute } from './score-job.ts';
import { SessionStore } from './sessions.ts';
import { CheckedServerSettings, ServerSettings } from './settings.ts';
import { settingsIssue } from '../settings.ts';

export type ServerConfig = z.infer<typeof ServerSettings> & {
  /** Served on /v1/chat/completions (and, for the student, /v1/completions) when given. */
  policy?: Policy;
};

export const DEFAULT_CONFIG: ServerConfig = ServerSettings.parse({});

export interface RunningServer {
  url: string;
  server: Server;
  sessions: SessionStore;
  pool: ScoringPool;
  connections: ConnectionGuard;
  config: ServerConfig;
  close(): Promise<void>;
}

/** The limits as the start-up banner and GET /health show them. */
export function describeLimits(c: ServerConfig) {
  return {
    max_body_bytes: c.maxBodyBytes,
    max_held_body_bytes: c.maxHeldBodyBytes,
    max_json_depth: c.maxJsonDepth,
    max_connections: c.maxConnections,
    headers_timeout_s: c.headersTimeoutS,
    request_timeout_s: c.requestTimeoutS,
    max_batch: c.maxBatch,
    scoring_threads: c.scoringThreads,
    max_sessions: c.maxSessions,
    session_ttl_s: c.sessionTtlS,
    max_turns: c.maxTurns,
    ...(c.policy ? { max_n: c.maxN, batch_window_ms: c.batchWindowMs, max_sequences: c.maxSequences } : {}),
  };
}

/** Who may call, as the banner and GET /health show it (never the key itself). */
export function describeAccess(c: ServerConfig) {
  return { api_key: c.apiKey !== undefined, browser_origins: ['loopback', ...c.allowOrigins] };
}

/** An answer serialised already (by a scoring thread). */
class Serialised {
  constructor(readonly bytes: Uint8Array) {}
}

type Handler = (req: IncomingMessage, url: URL) => Promise<unknown> | unknown;

/** The request target as a URL; 400 for one that is none (`http://[`, `//[`, `http://x:99999/`). */
function targetOf(req: IncomingMessage): URL {
  try {
    return new URL(req.url ?? '/', 'http://localhost');
  } catch {
    throw new HttpError(400, 'invalid_target', `malformed request target ${JSON.stringify((req.url ?? '').slice(0, 200))}: send a path such as /reward`);
  }
}

function sessionIdOf(body: Record<string, unknown>): string {
  return requireField(body, 'session_id', 'string') as string;
}

function episodeCall<T>(f: () => T): T {
  try {
    return f();
  } catch (err) {
    if (err instanceof EpisodeError) throw new HttpError(err.code === 'finished' ? 409 : 400, err.code === 'finished' ? 'episode_over' : 'invalid_request', err.message);
    throw err;
  }
}

export function createApp(config: ServerConfig): { server: Server; sessions: SessionStore; pool: ScoringPool; connections: ConnectionGuard } {
  const issue = settingsIssue(CheckedServerSettings, config, (key) => key);
  if (issue) throw new Error(issue);
  const access = new Access(config);
  const budget = new BodyBudget(config.maxHeldBodyBytes);
  const connections = new ConnectionGuard(config.maxConnections, { headersS: config.headersTimeoutS, requestS: config.requestTimeoutS });
  const sessions = new SessionStore(config.maxSessions, config.sessionTtlS * 1000);
  const pool = new ScoringPool(config.scoringThreads);
  const chat = config.policy ? new ChatService(config.policy, { modelId: config.modelId, maxN: config.maxN, batchWindowMs: config.batchWindowMs, maxSequences: config.maxSequences }) : null;
  const started = Date.now();
  const body = (req: IncomingMessage) => readJson(req, { maxBytes: config.maxBodyBytes, maxDepth: config.maxJsonDepth, budget });
  const presetFor = (url: URL) => {
    const name = url.searchParams.get('reward') ?? config.reward;
    rubricByName(name);
    return name;
  };
  // The preset is checked before the body is read, the body's size while reading it; the rest happens on a scoring thread.
  const score = (route: ScoreRoute) => async (req: IncomingMessage, url: URL) => {
    const reward = presetFor(url);
    const outcome = await pool.run({ route, reward, body: await readBody(req, { maxBytes: config.maxBodyBytes, budget }), maxBatch: config.maxBatch, maxJsonDepth: config.maxJsonDepth });
    if (!outcome.ok) throw new HttpError(outcome.status, outcome.code, outcome.message);
    return new Serialised(outcome.body);
  };

  const routes: Record<string, Record<string, Handler>> = {
    '/health': {
      GET: () => ({
        status: 'ok',
        uptime_s: Math.round((Date.now() - started) / 1000),
        reward: config.reward,
        rewards: RUBRIC_NAMES,
        envs: EPISODE_NAMES,
        sessions: { open: sessions.size, max: config.maxSessions },
        connections: connections.stats,
        held_body_bytes: budget.heldBytes,
        scoring: pool.stats,
        limits: describeLimits(config),
        access: describeAccess(config),
        model: chat ? config.modelId : null,
        ...(chat?.decoder ? { generation: chat.decoder.stats } : {}),
      }),
    },
    '/schema': {
      GET: () => ({
        action: responseJsonSchema(),
        editing_action: editingActionJsonSchema(),
        observation: observationJsonSchema(),
        system_prompts: { diagram: SYSTEM_PROMPT, editing: EDITING_SYSTEM_PROMPT },
      }),
    },
    '/reward': { POST: score('reward') },
    '/get_reward': { POST: score('get_reward') },
    '/reset': {
      POST: async (req) => {
        const b = bodyObject(await body(req), '{"env"?, "seed"?, "task"?, "options"?, "session_id"?}');
        const envName = (b.env ?? 'editing') as EpisodeName;
        if (!EPISODE_NAMES.includes(envName)) throw new HttpError(400, 'invalid_field', `env must be one of ${EPISODE_NAMES.join(', ')}, got ${JSON.stringify(b.env)}`);
        if (b.options !== undefined && !isObject(b.options)) throw new HttpError(400, 'invalid_field', 'field "options" must be an object');
        if (b.seed !== undefined && typeof b.seed !== 'number') throw new HttpError(400, 'invalid_field', `field "seed" must be an integer, got ${JSON.stringify(b.seed)}`);
        const request = { seed: b.seed as number | undefined, task: b.task, options: b.options as Record<string, unknown> | undefined };
        if (b.session_id !== undefined) {
          // Resetting a live session reuses its slot (and must keep its environment kind).
          const s = sessions.get(sessionIdOf(b));
          if (s.env.name !== envName) throw new HttpError(400, 'invalid_field', `session ${s.id} plays ${s.env.name}, not ${envName}; open a new session for another environment`);
          return { session_id: s.id, ...episodeCall(() => s.env.reset(request)) };
        }
        const env = makeEpisode(envName, { reward: config.reward, maxTurns: config.maxTurns });
        const first = episodeCall(() => env.reset(request));
        const s = sessions.open(env);
        return { session_id: s.id, ...first };
      },
    },
    '/step': {
      POST: async (req) => {
        const b = bodyObject(await body(req), '{"session_id", "action"}');
        const s = sessions.get(sessionIdOf(b));
        if (b.action === undefined) throw new HttpError(400, 'missing_field', 'missing field "action": the model\'s text, or {"actions": [...], "done"?: bool}');
        if (typeof b.action !== 'string' && !isObject(b.action)) throw new HttpError(400, 'invalid_field', 'field "action" must be a string (the model\'s text) or an object {"actions": [...]}');
        const action = typeof b.action === 'string' ? stripEndTokens(b.action) : (b.action as StepAction);
        return { session_id: s.id, ...episodeCall(() => s.env.step(action)) };
      },
    },
    '/state': {
      GET: (_req, url) => {
        const id = url.searchParams.get('session_id');
        if (!id) throw new HttpError(400, 'missing_field', 'missing query parameter "session_id": GET /state?session_id=...');
        return { session_id: id, ...sessions.get(id).env.state() };
      },
    },
    '/close': {
      POST: async (req) => {
        const id = sessionIdOf(bodyObject(await body(req), '{"session_id"}'));
        sessions.close(id);
        return { session_id: id, closed: true };
      },
    },
    ...(chat
      ? {
          '/v1/models': { GET: () => chat.models() },
          '/v1/chat/completions': { POST: async (req: IncomingMessage) => chat.chat(bodyObject(await body(req), '{"model", "messages", ...}')) },
          '/v1/completions': { POST: async (req: IncomingMessage) => chat.completions(bodyObject(await body(req), '{"model", "prompt", ...}')) },
        }
      : {}),
  };

  // Checks in this order: the target, the page a browser calls from, the token, the route, the method, the body's type.
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    budget.track(req, res);
    let cors: Record<string, string> = {};
    let url: URL | undefined;
    try {
      url = targetOf(req);
      // HTTP/1.1 requires the header; node:http would refuse its absence with a bare 400 (requireHostHeader, off below).
      if (req.httpVersion === '1.1' && req.headers.host === undefined) throw new HttpError(400, 'missing_host', 'HTTP/1.1 requests must carry a Host header');
      cors = access.corsHeaders(req);
      const route = routes[url.pathname];
      const methods = route ? [...Object.keys(route), ...('GET' in route ? ['HEAD'] : [])] : [];
      if (route && req.method === 'OPTIONS') {
        res.writeHead(204, { ...cors, ...(cors['access-control-allow-origin'] ? access.preflightHeaders(methods) : {}), allow: methods.join(', ') });
        return void res.end();
      }
      if (url.pathname !== '/health') access.authorize(req);
      if (!route) {
        const hint = url.pathname.startsWith('/v1/') && !chat ? ' (start the server with --policy CKPT to serve a model)' : '';
        throw new HttpError(404, 'not_found', `no route ${req.method} ${url.pathname}${hint}; routes: ${Object.keys(routes).join(', ')}`);
      }
      // HEAD is GET without the body (node:http leaves it out).
      const h = route[req.method ?? 'GET'] ?? (req.method === 'HEAD' ? route.GET : undefined);
      if (!h) throw new HttpError(405, 'method_not_allowed', `${url.pathname} takes ${methods.join(', ')}, not ${req.method}`);
      if (req.method === 'POST') requireJsonBody(req);
      const answer = await h(req, url);
      if (answer instanceof Streamed) await answer.write(res, cors);
      else if (answer instanceof Serialised) sendJsonBytes(res, 200, answer.bytes, cors);
      else sendJson(res, 200, answer, cors);
    } catch (err) {
      // An answer already on its way cannot be replaced by an error: cut the connection instead.
      if (res.headersSent) return void res.destroy();
      if (err instanceof HttpError) return sendError(res, err, cors);
      // A bug, not the client's fault: say so, keep serving.
      process.stderr.write(`canvasgym serve: ${req.method} ${url?.pathname} failed: ${(err as Error).stack ?? err}\n`);
      sendError(res, new HttpError(500, 'internal_error', `internal error: ${(err as Error).message}`), cors);
    }
  };
  // Node checks the deadlines every connectionsCheckingInterval; its default, 30 s, would let a trickling client stay
  // that long past its deadline.
  const server = createServer(
    {
      headersTimeout: Math.round(config.headersTimeoutS * 1000),
      requestTimeout: Math.round(config.requestTimeoutS * 1000),
      connectionsCheckingInterval: Math.max(10, Math.min(1000, Math.round((config.headersTimeoutS * 1000) / 4))),
      requireHostHeader: false,
    },
    (req, res) => void handle(req, res),
  );
  // A client that half-closes after its request (`nc`, some proxies) still gets its answer: by default node:http drops
  // a request whose answer is not ready when the client's FIN arrives (every scored or generated one). No public option
  // sets this; the property has been node:http's switch for it since 0.x.
  (server as Server & { httpAllowHalfOpen: boolean }).httpAllowHalfOpen = true;
  connections.attach(server);
  server.on('close', () => {
    sessions.stop();
    void pool.close();
  });
  return { server, sessions, pool, connections };
}

export async function startServer(overrides: Partial<ServerConfig> = {}): Promise<RunningServer> {
  const config = { ...DEFAULT_CONFIG, ...overrides };
  rubricByName(config.reward);
  const { server, sessions, pool, connections } = createApp(config);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      // A crowd of slow clients dropped at one deadline reconnects at once: past the accept queue (511 by default)
      // the kernel drops connection attempts, and a client's next try comes a second later.
      server.listen({ port: config.port, host: config.host, backlog: config.maxConnections }, () => resolve());
    });
  } catch (err) {
    sessions.stop();
    await pool.close();
    throw err;
  }
  const { port } = server.address() as AddressInfo;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  return {
    url: `http://${host}:${port}`,
    server,
    sessions,
    pool,
    connections,
    config: { ...config, port },
    close: async () => {
      sessions.stop();
      await pool.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
