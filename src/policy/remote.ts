// What every remote policy shares: a concurrency limit, a timeout per request, retries with backoff on 429 and 5xx,
// and errors that say what to fix (bad key, unknown model, server down) instead of a stack trace from an SDK.

export interface RemoteOptions {
  /** Requests in flight at once. */
  concurrency?: number;
  /** Milliseconds one request may take before it is abandoned (and retried). */
  timeoutMs?: number;
  /** Retries after the first attempt, for 429, 5xx, timeouts and dropped connections. */
  maxRetries?: number;
  /** First backoff delay in milliseconds; doubles each retry, with jitter, capped at maxBackoffMs. */
  backoffMs?: number;
  maxBackoffMs?: number;
}

export const REMOTE_DEFAULTS: Required<RemoteOptions> = {
  concurrency: 4,
  timeoutMs: 120_000,
  maxRetries: 4,
  backoffMs: 1_000,
  maxBackoffMs: 30_000,
};

/**
 * Why a remote call failed. `auth`, `model`, `unreachable` and `request` are fatal: retrying cannot help, so the
 * run stops with the message. `rate_limit`, `server`, `timeout` and `network` are retried and, once retries are
 * spent, become one failed completion.
 */
export type RemoteErrorKind = 'auth' | 'model' | 'unreachable' | 'request' | 'rate_limit' | 'server' | 'timeout' | 'network';

export class RemoteError extends Error {
  constructor(
    message: string,
    readonly kind: RemoteErrorKind,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'RemoteError';
  }

  get fatal(): boolean {
    return this.kind === 'auth' || this.kind === 'model' || this.kind === 'unreachable' || this.kind === 'request';
  }
}

export interface Endpoint {
  /** Policy name for messages, e.g. `openai:qwen2.5-7b`. */
  policy: string;
  baseUrl: string;
  model: string;
  /** Where the key comes from, for the bad-key message. */
  keyHint: string;
}

/** Walks an error's `cause` chain for a Node system error code (ECONNREFUSED, ENOTFOUND, ...). */
function systemCode(err: unknown): string | undefined {
  for (let e: unknown = err, depth = 0; e && depth < 6; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return code;
  }
  return undefined;
}

function statusOf(err: unknown): number | undefined {
  const s = (err as { status?: unknown })?.status;
  return typeof s === 'number' ? s : undefined;
}

function serverMessage(err: unknown): string {
  const m = err instanceof Error ? err.message : String(err);
  return m.length > 300 ? `${m.slice(0, 300)}...` : m;
}

/** Maps an SDK error to a RemoteError that names the cause and the fix. */
export function classifyError(err: unknown, at: Endpoint, timedOut: boolean, timeoutMs: number): RemoteError {
  if (err instanceof RemoteError) return err;
  const where = `${at.policy}: ${at.baseUrl}`;
  if (timedOut) return new RemoteError(`${where} gave no response within ${timeoutMs} ms`, 'timeout');
  const status = statusOf(err);
  const detail = serverMessage(err);
  if (status !== undefined) {
    // Gemini answers a bad key with 400 API_KEY_INVALID, not 401.
    if (status === 401 || status === 403 || (status === 400 && /api[ _-]?key/i.test(detail))) {
      return new RemoteError(`${where} refused the API key (HTTP ${status}); set ${at.keyHint}. Server said: ${detail}`, 'auth', status);
    }
    if (status === 404) {
      return new RemoteError(
        `${where} has no model "${at.model}" (HTTP 404), or the base URL is wrong. Server said: ${detail}`,
        'model',
        status,
      );
    }
    if (status === 429) return new RemoteError(`${where} is rate limiting (HTTP 429): ${detail}`, 'rate_limit', status);
    if (status === 408 || status >= 500) return new RemoteError(`${where} server error (HTTP ${status}): ${detail}`, 'server', status);
    return new RemoteError(`${where} rejected the request (HTTP ${status}): ${detail}`, 'request', status);
  }
  const code = systemCode(err);
  if (code === 'ECONNREFUSED') return new RemoteError(`${where} refused the connection (ECONNREFUSED): is the server running?`, 'unreachable');
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return new RemoteError(`${where}: host not found (${code}); check the base URL`, 'unreachable');
  return new RemoteError(`${where}: network error${code ? ` (${code})` : ''}: ${detail}`, 'network');
}

/** Seconds from a Retry-After header, when the error carries one. */
function retryAfterMs(err: unknown): number | undefined {
  const headers = (err as { headers?: unknown })?.headers;
  const value =
    headers instanceof Headers ? headers.get('retry-after') : typeof headers === 'object' && headers ? (headers as Record<string, string>)['retry-after'] : undefined;
  const seconds = value ? Number(value) : NaN;
  return Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : undefined;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Limits how many calls run at once; the rest wait in order. */
export class Limiter {
  private active = 0;
  private readonly waiting: (() => void)[] = [];
  constructor(private readonly max: number) {
    if (!Number.isInteger(max) || max < 1) throw new Error(`concurrency must be a positive integer, got ${max}`);
  }

  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.active >= this.max) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.active++;
    try {
      return await fn();
    } finally {
      this.active--;
      this.waiting.shift()?.();
    }
  }
}

/**
 * Runs `call` with a timeout (through the AbortSignal it receives) and retries transient failures with exponential
 * backoff, honouring Retry-After. Throws a RemoteError: at once for fatal causes, after the last retry otherwise.
 */
/** The options over the defaults; a key set to undefined keeps its default (callers pass flags through as they come). */
export function withDefaults(options: RemoteOptions): Required<RemoteOptions> {
  const given = Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined));
  return { ...REMOTE_DEFAULTS, ...given } as Required<RemoteOptions>;
}

export async function callWithRetries<T>(call: (signal: AbortSignal) => Promise<T>, at: Endpoint, options: RemoteOptions = {}): Promise<T> {
  const o = withDefaults(options);
  for (let attempt = 0; ; attempt++) {
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, o.timeoutMs);
    try {
      return await call(controller.signal);
    } catch (err) {
      const error = classifyError(err, at, timedOut, o.timeoutMs);
      if (error.fatal) throw error;
      if (attempt >= o.maxRetries) {
        throw new RemoteError(`${error.message} (gave up after ${attempt + 1} attempts)`, error.kind, error.status);
      }
      const backoff = Math.min(o.maxBackoffMs, o.backoffMs * 2 ** attempt) * (0.5 + 0.5 * Math.random());
      await sleep(Math.min(o.maxBackoffMs, retryAfterMs(err) ?? backoff));
    } finally {
      clearTimeout(timer);
    }
  }
}

/** The JSON Schema a remote policy's answers must follow (structured output), and the name servers file it under. */
export interface ResponseSchema {
  name: string;
  schema: Record<string, unknown>;
}

/**
 * A response schema in the subset structured-output servers share: unions as `anyOf` (OpenAI and Gemini refuse
 * `oneOf`; where the branches are disjoint, as the action language's are by their `type` constants, nothing changes)
 * and no `$schema` key.
 */
export function portableResponseSchema(schema: Record<string, unknown>): Record<string, unknown> {
  const rewrite = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(rewrite);
    if (!v || typeof v !== 'object') return v;
    return Object.fromEntries(
      Object.entries(v)
        .filter(([k]) => k !== '$schema')
        .map(([k, val]) => [k === 'oneOf' ? 'anyOf' : k, rewrite(val)]),
    );
  };
  return rewrite(schema) as Record<string, unknown>;
}
