// Open connections: a cap, and a JSON answer wherever the server drops a request. Slow clients (headers or a body that
// trickle in) are dropped by Node's deadlines, headersTimeout and requestTimeout, answered here with a 408. At the
// cap a new connection takes the place of the one that has waited longest without sending a whole request (an idle
// keep-alive connection, or one still trickling): a crowd of slow clients is cycled out rather than locking everyone
// else out, and only when every open connection has a whole request in hand is the newcomer refused. The cap is
// high (slow connections cost little; a closed one is at once replaced by its client, and that churn fills the
// kernel's accept queue, where a newcomer then waits seconds): what they could hold in memory is bounded apart, by
// BodyBudget. Requests the HTTP parser refuses get a JSON 400 or 431 instead of Node's bare status line.
import { STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { errorBody } from './http.ts';

interface Open {
  /** When it connected or last finished a response: how long it has waited to send a request. */
  since: number;
  req?: IncomingMessage;
  res?: ServerResponse;
}

export interface ConnectionStats {
  open: number;
  max: number;
  /** Dropped at the cap to make room, refused at the cap, dropped past a deadline, refused by the HTTP parser
   *  (a client that closed mid-request is none of these). */
  evicted: number;
  refused: number;
  timed_out: number;
  malformed: number;
}

/** Answers on a raw socket (no response object exists, or it has sent nothing yet), then closes it. */
function drop(socket: Socket, status: number, code: string, message: string): void {
  if (socket.writable) {
    const body = JSON.stringify(errorBody(status, code, message));
    socket.write(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
  }
  socket.destroy();
}

export class ConnectionGuard {
  private readonly open = new Map<Socket, Open>();
  private readonly counts = { evicted: 0, refused: 0, timed_out: 0, malformed: 0 };

  constructor(
    readonly max: number,
    private readonly deadlines: { headersS: number; requestS: number },
    private readonly now: () => number = performance.now.bind(performance),
  ) {}

  get stats(): ConnectionStats {
    return { open: this.open.size, max: this.max, ...this.counts };
  }

  attach(server: Server): void {
    server.on('connection', (socket: Socket) => this.admit(socket));
    server.on('request', (req: IncomingMessage, res: ServerResponse) => this.track(req, res));
    server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => this.refuse(err, socket));
    // Without a listener node:http closes a CONNECT's socket without a word.
    server.on('connect', (_req: IncomingMessage, socket: Socket) => this.close(socket, 405, 'method_not_allowed', 'CONNECT is not supported: this server is not a proxy'));
  }

  private admit(socket: Socket): void {
    if (this.open.size >= this.max) {
      const victim = this.longestWaiting();
      if (!victim) {
        this.counts.refused++;
        drop(socket, 503, 'too_many_connections', `the server has ${this.max} connections open (--max-connections), each with a request in hand; retry shortly`);
        return;
      }
      this.evict(victim);
    }
    this.open.set(socket, { since: this.now() });
    socket.once('close', () => this.open.delete(socket));
  }

  private track(req: IncomingMessage, res: ServerResponse): void {
    const c = this.open.get(req.socket);
    if (!c) return;
    c.req = req;
    c.res = res;
    res.once('close', () => {
      if (c.req !== req) return;
      c.req = c.res = undefined;
      c.since = this.now();
    });
  }

  private refuse(err: NodeJS.ErrnoException, socket: Socket): void {
    if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
      this.counts.timed_out++;
      this.close(socket, 408, 'request_timeout', `the request did not arrive in time: headers within ${this.deadlines.headersS} s (--headers-timeout), the whole request within ${this.deadlines.requestS} s (--request-timeout)`);
    } else if (err.code === 'ECONNRESET' || err.code === 'EPIPE') {
      socket.destroy();
    } else if (err.code === 'HPE_INVALID_EOF_STATE') {
      // The client closed its side mid-request: it may still read why nothing more will come.
      this.close(socket, 400, 'request_incomplete', 'the connection was closed before the request was complete');
    } else {
      this.counts.malformed++;
      const [status, code, message] =
        err.code === 'HPE_HEADER_OVERFLOW'
          ? [431, 'headers_too_large', 'request headers are too large']
          : [400, 'malformed_request', `malformed HTTP request: ${err.message.replace(/^Parse Error: /, '')}`];
      this.close(socket, status, code, message);
    }
  }

  /** Answers unless a response has begun on the connection, whose bytes an answer would corrupt. */
  private close(socket: Socket, status: number, code: string, message: string): void {
    const c = this.open.get(socket);
    this.open.delete(socket);
    if (c?.res?.headersSent) socket.destroy();
    else drop(socket, status, code, message);
  }

  /** Makes room at the cap. Only a request under way hears why: an idle keep-alive connection would take an answer
   *  it did not ask for as the answer to its next request, and a slow client's headers are no request yet. */
  private evict(socket: Socket): void {
    this.counts.evicted++;
    if (this.open.get(socket)?.req) {
      this.close(socket, 503, 'connection_evicted', `connection dropped: the server reached its cap of ${this.max} connections (--max-connections) and this one had waited longest without sending a whole request`);
    } else {
      this.open.delete(socket);
      socket.destroy();
    }
  }

  private longestWaiting(): Socket | undefined {
    let found: Socket | undefined;
    let since = Infinity;
    for (const [socket, c] of this.open) {
      if ((!c.req || !c.req.complete) && c.since < since) {
        found = socket;
        since = c.since;
      }
    }
    return found;
  }
}
