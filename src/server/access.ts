// Who may call the server. Browsers: only pages on loopback (a notebook or a dev app on this machine) and origins
// allowed with --allow-origin, since any other page the user opens could otherwise fill the session cap or use the
// machine's cores; the server serves no pages, so no other origin is its own. Clients: with the bearer token when
// --api-key is set (/health stays open for probes). Bodies: POST only with Content-Type: application/json, which a
// cross-site form or text/plain POST cannot send without a CORS preflight.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { HttpError } from './http.ts';

export interface AccessConfig {
  /** Bearer token required on every route but /health; none: no token. */
  apiKey?: string;
  /** Browser origins allowed beside loopback pages, as `scheme://host[:port]`; '*' allows any page. */
  allowOrigins: string[];
}

/** localhost (and its subdomains), 127.0.0.0/8 and ::1, as written in a URL's host or a --host flag. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h.endsWith('.localhost') || h === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

/** --allow-origin values in the form browsers send them; throws naming a value that is not an origin. */
export function parseOrigins(values: string[]): string[] {
  return values.map((v) => {
    if (v === '*') return v;
    let url: URL | undefined;
    try {
      url = new URL(v);
    } catch {
      // reported below
    }
    if (!url || !/^https?:$/.test(url.protocol) || url.pathname !== '/' || url.search || url.hash || url.username) {
      throw new Error(`${JSON.stringify(v)} is not an origin such as https://app.example.com or http://localhost:3000`);
    }
    return url.origin;
  });
}

const digest = (s: string) => createHash('sha256').update(s).digest();

export class Access {
  private readonly origins: Set<string>;
  private readonly key: Buffer | undefined;

  constructor(config: AccessConfig) {
    this.origins = new Set(parseOrigins(config.allowOrigins));
    // Hashes compare in constant time whatever the lengths.
    this.key = config.apiKey === undefined ? undefined : digest(config.apiKey);
  }

  /** The CORS headers an allowed page needs to read the answer (none without an Origin); 403 for any other page. */
  corsHeaders(req: IncomingMessage): Record<string, string> {
    const origin = req.headers.origin;
    if (origin === undefined) return {};
    let host: string | undefined;
    try {
      host = new URL(origin).hostname;
    } catch {
      // "null" (a sandboxed frame, a file) or garbage: no host to trust
    }
    const allowed = this.origins.has('*') || this.origins.has(origin.toLowerCase()) || (host !== undefined && isLoopbackHost(host));
    if (!allowed) {
      throw new HttpError(403, 'origin_not_allowed', `requests from the web page ${JSON.stringify(origin.slice(0, 200))} are refused: only loopback pages and origins given to --allow-origin may call this server`);
    }
    return { 'access-control-allow-origin': origin, vary: 'Origin' };
  }

  /** What a browser's preflight needs to send the real request. */
  preflightHeaders(methods: string[]): Record<string, string> {
    return { 'access-control-allow-methods': methods.join(', '), 'access-control-allow-headers': 'content-type, authorization', 'access-control-max-age': '600' };
  }

  /** 401 unless the request carries the bearer token (when the server has one). */
  authorize(req: IncomingMessage): void {
    if (!this.key) return;
    const token = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '')?.[1];
    if (token === undefined) throw new HttpError(401, 'unauthorized', 'missing API key: send the header Authorization: Bearer KEY (this server was started with --api-key)', { 'www-authenticate': 'Bearer' });
    if (!timingSafeEqual(digest(token), this.key)) throw new HttpError(401, 'unauthorized', 'wrong API key in the Authorization header', { 'www-authenticate': 'Bearer' });
  }
}

/** 415 unless the body is declared as JSON. */
export function requireJsonBody(req: IncomingMessage): void {
  const type = req.headers['content-type'];
  if (type?.split(';')[0].trim().toLowerCase() === 'application/json') return;
  throw new HttpError(415, 'unsupported_media_type', `POST bodies are JSON: send the header Content-Type: application/json${type ? `, not ${JSON.stringify(type.slice(0, 100))}` : ' (none was sent)'}`);
}
