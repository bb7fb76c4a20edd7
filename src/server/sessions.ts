// Episodes kept between requests: ids, an idle time-to-live and a cap. Expired and closed ids are remembered for a
// while so that a late request hears why its session is gone rather than only that it is unknown.
import { randomUUID } from 'node:crypto';
import type { CanvasEnv } from '../diagram/episode.ts';
import { HttpError } from './http.ts';

export interface Session {
  id: string;
  env: CanvasEnv;
  created: number;
  lastUsed: number;
}

const REMEMBERED = 10_000;

export class SessionStore {
  private readonly live = new Map<string, Session>();
  private readonly gone = new Map<string, string>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    readonly maxSessions: number,
    readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.timer = setInterval(() => this.sweep(), Math.max(50, Math.min(ttlMs / 2, 30_000)));
    this.timer.unref();
  }

  get size(): number {
    this.sweep();
    return this.live.size;
  }

  open(env: CanvasEnv): Session {
    this.sweep();
    if (this.live.size >= this.maxSessions) {
      throw new HttpError(429, 'too_many_sessions', `session cap reached: ${this.live.size} open of ${this.maxSessions} (--max-sessions); POST /close finished sessions or wait for idle ones to expire after ${this.ttlMs / 1000} s`);
    }
    const t = this.now();
    const session = { id: randomUUID(), env, created: t, lastUsed: t };
    this.live.set(session.id, session);
    return session;
  }

  get(id: string): Session {
    this.sweep();
    const s = this.live.get(id);
    if (!s) {
      const why = this.gone.get(id);
      if (why) throw new HttpError(404, 'session_gone', `session ${JSON.stringify(id)} ${why}; POST /reset to start a new one`);
      throw new HttpError(404, 'unknown_session', `unknown session ${JSON.stringify(id)}: no session with this id was opened here; POST /reset to start one`);
    }
    s.lastUsed = this.now();
    return s;
  }

  close(id: string): void {
    this.get(id);
    this.forget(id, 'was closed');
  }

  sweep(): void {
    const t = this.now();
    for (const [id, s] of this.live) if (t - s.lastUsed > this.ttlMs) this.forget(id, `expired after ${this.ttlMs / 1000} s idle (--session-ttl)`);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private forget(id: string, why: string): void {
    this.live.delete(id);
    this.gone.set(id, why);
    if (this.gone.size > REMEMBERED) this.gone.delete(this.gone.keys().next().value!);
  }
}
