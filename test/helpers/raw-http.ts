// Raw HTTP/1.1 over node:net, for what fetch will not send: malformed request lines and headers, bytes trickled in
// over seconds. Reads the first final response (1xx skipped) and reports how long it took.
import { connect } from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface RawResult {
  /** The first final response, or undefined when the connection closed or the time ran out before one. */
  response?: RawResponse;
  /** Why no response: 'closed' (by the server), 'timeout' (ours), 'malformed' (bytes that are no HTTP response). */
  failure?: 'closed' | 'timeout' | 'malformed';
  /** Every byte the server sent. */
  received: Buffer;
  ms: number;
}

export interface RawOptions {
  /** Half-close after the last chunk, as a client that sent all it had. */
  end?: boolean;
  /** Pause between chunks. */
  gapMs?: number;
  /** Give up after this long. */
  timeoutMs?: number;
  /** The request was HEAD: the response has no body whatever its length says. */
  head?: boolean;
}

/** The first final response in `bytes`; null while incomplete; 'malformed' for bytes that cannot be one. */
export function parseResponse(bytes: Buffer, head = false): RawResponse | null | 'malformed' {
  let at = 0;
  for (;;) {
    const end = bytes.indexOf('\r\n\r\n', at);
    if (end < 0) return bytes.length - at >= 8 && !bytes.subarray(at, at + 8).toString('latin1').startsWith('HTTP/1.') ? 'malformed' : null;
    const lines = bytes.subarray(at, end).toString('latin1').split('\r\n');
    const m = /^HTTP\/1\.[01] (\d{3}) [^\r\n]*$/.exec(lines[0]);
    if (!m) return 'malformed';
    const status = Number(m[1]);
    const headers: Record<string, string> = {};
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      if (colon <= 0) return 'malformed';
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    at = end + 4;
    if (status < 200) continue;
    if (!head && headers['transfer-encoding'] === 'chunked') return dechunk(bytes.subarray(at), status, headers);
    const length = head || status === 204 || status === 304 ? 0 : Number(headers['content-length'] ?? NaN);
    if (!Number.isInteger(length) || length < 0) return 'malformed';
    if (bytes.length - at < length) return null;
    return { status, headers, body: bytes.subarray(at, at + length).toString('utf8') };
  }
}

/** A chunked body (server-sent events come so): the chunks joined once the last one has arrived; null until then. */
function dechunk(bytes: Buffer, status: number, headers: Record<string, string>): RawResponse | 'malformed' | null {
  const parts: Buffer[] = [];
  for (let at = 0; ; ) {
    const eol = bytes.indexOf('\r\n', at);
    if (eol < 0) return null;
    const size = parseInt(bytes.subarray(at, eol).toString('latin1'), 16);
    if (!Number.isInteger(size) || size < 0) return 'malformed';
    if (bytes.length < eol + 2 + size + 2) return null;
    if (size === 0) return { status, headers, body: Buffer.concat(parts).toString('utf8') };
    parts.push(bytes.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
}

export function rawRequest(port: number, chunks: (string | Buffer)[], opts: RawOptions = {}): Promise<RawResult> {
  const t0 = performance.now();
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let got = Buffer.alloc(0);
    let done = false;
    const finish = (r: Omit<RawResult, 'ms' | 'received'>) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ ...r, received: got, ms: performance.now() - t0 });
    };
    const timer = setTimeout(() => finish({ failure: 'timeout' }), opts.timeoutMs ?? 10_000);
    socket.on('data', (d: Buffer) => {
      got = Buffer.concat([got, d]);
      const r = parseResponse(got, opts.head);
      if (r === 'malformed') finish({ failure: 'malformed' });
      else if (r) finish({ response: r });
    });
    // A reset after the answer arrived changes nothing; before it, the request got none.
    socket.on('error', () => finish({ failure: 'closed' }));
    socket.on('close', () => finish({ failure: 'closed' }));
    void (async () => {
      for (const [i, c] of chunks.entries()) {
        if (done || socket.destroyed) return;
        if (i > 0 && opts.gapMs) await new Promise((r) => setTimeout(r, opts.gapMs));
        if (done || socket.destroyed) return;
        socket.write(c);
      }
      if (opts.end && !done) socket.end();
    })();
  });
}

/** A request as one string, CRLF between lines. */
export const requestText = (line: string, headers: string[], body = '') => `${line}\r\n${headers.map((h) => `${h}\r\n`).join('')}\r\n${body}`;
