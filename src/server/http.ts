// The HTTP edge: read a JSON body under a size cap, answer JSON, and turn every bad request into a 4xx whose message
// names the problem. Errors use OpenAI's shape, {"error": {"message", "type", "code"}}, so that its SDK shows the message.
import type { IncomingMessage, ServerResponse } from 'node:http';

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
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

export function sendError(res: ServerResponse, err: HttpError): void {
  const type = err.status >= 500 ? 'server_error' : 'invalid_request_error';
  // After an oversize body the rest of the upload is not read: the connection cannot carry another request.
  sendJson(res, err.status, { error: { message: err.message, type, code: err.code } }, err.code === 'body_too_large' ? { connection: 'close' } : {});
}

/** The raw request body, in a buffer of its own (so that it can be transferred to a scoring thread); 413 past
 *  `maxBytes`, checked on the header and while reading. */
export async function readBody(req: IncomingMessage, maxBytes: number): Promise<Uint8Array> {
  const tooLarge = (size: string) => new HttpError(413, 'body_too_large', `request body is ${size}; the limit is ${maxBytes} bytes (--max-body-bytes)`);
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    req.resume();
    throw tooLarge(`${declared} bytes`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) {
      req.resume();
      throw tooLarge(`over ${maxBytes} bytes`);
    }
    chunks.push(chunk);
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    bytes.set(c, at);
    at += c.length;
  }
  return bytes;
}

/** A body's bytes as JSON; 400 when empty or not JSON. */
export function parseJsonBody(bytes: Uint8Array): unknown {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  if (text.trim() === '') throw new HttpError(400, 'empty_body', 'request body is empty: send a JSON body');
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new HttpError(400, 'malformed_json', `request body is not valid JSON: ${(err as Error).message}`);
  }
}

/** The request body as parsed JSON: readBody, then parseJsonBody. */
export async function readJson(req: IncomingMessage, maxBytes: number): Promise<unknown> {
  return parseJsonBody(await readBody(req, maxBytes));
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
