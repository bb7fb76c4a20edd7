// The HTTP edge: read a JSON body under a size cap, answer JSON, and turn every bad request into a 4xx whose message
// names the problem. Errors use OpenAI's shape, {"error": {"message", "type", "code"}}, so that its SDK shows the message.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { nestsDeeperThan } from '../io/json-depth.ts';

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  sendJsonBytes(res, status, Buffer.from(JSON.stringify(body)), headers);
}

/** An answer already serialised (by a scoring thread). */
export function sendJsonBytes(res: ServerResponse, status: number, bytes: Uint8Array, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': bytes.byteLength, ...headers });
  res.end(bytes);
}

/** OpenAI's error object, as every error answer carries it. */
export const errorBody = (status: number, code: string, message: string) => ({ error: { message, type: status >= 500 ? 'server_error' : 'invalid_request_error', code } });

export function sendError(res: ServerResponse, err: HttpError, headers: Record<string, string> = {}): void {
  sendJson(res, err.status, errorBody(err.status, err.code, err.message), { ...headers, ...err.headers });
}

/** Bytes of request bodies the server holds at once, each from its arrival until its answer is done: the connection
 *  cap times the body cap would be more memory than a machine has. */
export class BodyBudget {
  private held = 0;
  private readonly byRequest = new WeakMap<IncomingMessage, number>();

  constructor(readonly maxBytes: number) {}

  get heldBytes(): number {
    return this.held;
  }

  /** Gives the request's bytes back when its answer is done or its connection gone. */
  track(req: IncomingMessage, res: ServerResponse): void {
    res.once('close', () => {
      this.held -= this.byRequest.get(req) ?? 0;
      this.byRequest.delete(req);
    });
  }

  /** 503 when `n` more bytes would pass the budget. */
  take(req: IncomingMessage, n: number): void {
    if (this.held + n > this.maxBytes) {
      throw new HttpError(503, 'server_busy', `the server holds ${this.held} bytes of request bodies, near its limit of ${this.maxBytes} (--max-held-body-bytes); retry shortly`, CLOSE);
    }
    this.held += n;
    this.byRequest.set(req, (this.byRequest.get(req) ?? 0) + n);
  }
}

// The rest of an upload refused part way is not read: the connection cannot carry another request.
const CLOSE = { connection: 'close' };

/** The raw request body, in a buffer of its own (so that it can be transferred to a scoring thread); 413 past
 *  `maxBytes`, checked on the header and while reading; 503 past the server's budget. */
export async function readBody(req: IncomingMessage, limits: { maxBytes: number; budget: BodyBudget }): Promise<Uint8Array> {
  const { maxBytes, budget } = limits;
  const tooLarge = (size: string) => new HttpError(413, 'body_too_large', `request body is ${size}; the limit is ${maxBytes} bytes (--max-body-bytes)`, CLOSE);
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    req.resume();
    throw tooLarge(`${declared} bytes`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > maxBytes) {
        req.resume();
        throw tooLarge(`over ${maxBytes} bytes`);
      }
      budget.take(req, chunk.length);
      chunks.push(chunk);
    }
  } catch (err) {
    if (err instanceof HttpError) throw err;
    // The client went away, or the connection was dropped (a deadline, the connection cap): the client's doing, not a bug.
    throw new HttpError(400, 'body_incomplete', `request body ended early: ${(err as Error).message}`);
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    bytes.set(c, at);
    at += c.length;
  }
  return bytes;
}

/** A body's bytes as JSON; 400 when empty, not JSON, or nested past `maxDepth`: JSON.parse takes any depth, but what
 *  reads the value afterwards (zod, JSON.stringify, the episode code) recurses and would run out of stack. */
export function parseJsonBody(bytes: Uint8Array, maxDepth: number): unknown {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  if (text.trim() === '') throw new HttpError(400, 'empty_body', 'request body is empty: send a JSON body');
  if (nestsDeeperThan(bytes, maxDepth)) throw new HttpError(400, 'too_deep', `request body nests arrays and objects more than ${maxDepth} deep (--max-json-depth)`);
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new HttpError(400, 'malformed_json', `request body is not valid JSON: ${(err as Error).message}`);
  }
}

/** The request body as parsed JSON: readBody, then parseJsonBody. */
export async function readJson(req: IncomingMessage, limits: { maxBytes: number; maxDepth: number; budget: BodyBudget }): Promise<unknown> {
  return parseJsonBody(await readBody(req, limits), limits.maxDepth);
}

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const describe = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v === 'object' ? 'an object' : `a ${typeof v}`);

/** The body as an object; 400 naming what it was instead. */
export function bodyObject(body: unknown, shape: string): Record<string, unknown> {
  if (!isObject(body)) throw new HttpError(400, 'invalid_body', `request body must be a JSON object ${shape}, got ${describe(body)}`);
  return body;
}

export function requireField(body: Record<string, unknown>, field: string, type: 'string' | 'array' | 'object' | 'number', where = ''): unknown {
  const name = `${where}${field}`;
  if (!(field in body) || body[field] === undefined) throw new HttpError(400, 'missing_field', `missing field "${name}"`);
  const v = body[field];
  const ok = type === 'array' ? Array.isArray(v) : type === 'object' ? isObject(v) : typeof v === type;
  if (!ok) throw new HttpError(400, 'invalid_field', `field "${name}" must be ${type === 'array' || type === 'object' ? 'an' : 'a'} ${type}, got ${describe(v)}`);
  return v;
}

export function checkBatch(size: number, maxBatch: number, what: string): void {
  if (size === 0) throw new HttpError(400, 'empty_batch', `${what} is empty: send at least one row`);
  if (size > maxBatch) throw new HttpError(413, 'batch_too_large', `${what} has ${size} rows; the limit is ${maxBatch} per request (--max-batch)`);
}
