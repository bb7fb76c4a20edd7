// Scoring threads for /reward and /get_reward, so that the HTTP thread only reads bodies and writes answers while
// scoring uses every core. Queued requests are batched: an idle thread takes its share of the queue in one message and
// answers each request as soon as it is scored. Threads start with the first scoring request (a server used only for
// episodes or chat never loads them). While no thread is ready (starting, or all restarting after a crash),
// the HTTP thread scores itself rather than keep clients waiting, except for heavy requests, which wait for a thread
// (on the HTTP thread they would stall every other client, /health included). A heavy request (a large body) goes to a
// thread alone and, with two threads or more, leaves one thread free of heavy work: scoring is not preemptive, so that
// free thread is what keeps a small request from waiting seconds behind big ones. A thread that dies fails its
// requests with a 500 and is replaced.
import { Worker } from 'node:worker_threads';
import { runScoreJob, type JobOutcome, type ScoreJob } from './score-job.ts';
import { workerEntry } from '../io/worker-entry.ts';

/** Bytes of request bodies one message to a thread may carry: batching saves messages, not latency. */
const BATCH_BYTES = 1 << 20;
/** Bodies past this size are heavy: about 170 typical rows, scored in some 10 ms; a trainer's group is far smaller. */
export const HEAVY_BYTES = 256 * 1024;
const isHeavy = (q: Queued) => q.job.body.byteLength > HEAVY_BYTES;

interface Queued {
  id: number;
  job: ScoreJob;
  resolve: (outcome: JobOutcome) => void;
}

interface Thread {
  worker: Worker;
  ready: boolean;
  inFlight: Map<number, Queued>;
  /** Holds a heavy request (alone). */
  heavy: boolean;
}

export interface PoolStats {
  /** Scoring threads asked for, and those started and serving. */
  threads: number;
  ready: number;
  /** Requests scored by the threads and by the HTTP thread itself. */
  pooled: number;
  inline: number;
  /** Threads replaced after dying. */
  restarts: number;
}

export class ScoringPool {
  private started: Promise<void> | undefined;
  private readonly live: Thread[] = [];
  private readonly queue: Queued[] = [];
  private nextId = 1;
  private closing = false;
  private counts = { pooled: 0, inline: 0, restarts: 0 };

  constructor(readonly threads: number) {
    if (!Number.isInteger(threads) || threads < 0 || threads > 256) throw new Error(`scoring threads must be an integer from 0 to 256, got ${threads}`);
  }

  /** Starts the threads if they are not; resolves once each has started or failed to (the pool then scores with
   *  those that started, or on the HTTP thread). */
  warm(): Promise<void> {
    this.started ??= Promise.all(Array.from({ length: this.closing ? 0 : this.threads }, () => this.spawn())).then(() => undefined);
    return this.started;
  }

  get stats(): PoolStats {
    return { threads: this.threads, ready: this.live.filter((t) => t.ready).length, ...this.counts };
  }

  run(job: ScoreJob): Promise<JobOutcome> {
    if (this.closing) return Promise.resolve({ ok: false, status: 503, code: 'shutting_down', message: 'the server is shutting down' });
    void this.warm();
    if (!this.live.some((t) => t.ready) && (this.live.length === 0 || job.body.byteLength <= HEAVY_BYTES)) {
      this.counts.inline++;
      return Promise.resolve(runScoreJob(job));
    }
    return new Promise((resolve) => {
      this.queue.push({ id: this.nextId++, job, resolve });
      this.pump();
    });
  }

  async close(): Promise<void> {
    this.closing = true;
    for (const q of this.queue.splice(0)) q.resolve({ ok: false, status: 503, code: 'shutting_down', message: 'the server is shutting down' });
    await Promise.all(this.live.map((t) => t.worker.terminate()));
  }

  /** Hands each idle thread its share of the queue: a heavy request alone while a heavy slot is free, else light ones
   *  (heavy ones behind them keep their place). */
  private pump(): void {
    const ready = this.live.filter((t) => t.ready);
    if (ready.length === 0) {
      // No thread ready: score here, except heavy requests while threads are starting (they wait for one).
      const starting = this.live.length > 0;
      const here: Queued[] = [];
      const wait: Queued[] = [];
      for (const q of this.queue) (starting && isHeavy(q) ? wait : here).push(q);
      this.queue.splice(0, this.queue.length, ...wait);
      for (const q of here) {
        this.counts.inline++;
        q.resolve(runScoreJob(q.job));
      }
      return;
    }
    const idle = ready.filter((t) => t.inFlight.size === 0);
    let heavySlots = Math.max(1, ready.length - 1) - ready.filter((t) => t.heavy).length;
    for (let i = 0; i < idle.length && this.queue.length > 0; i++) {
      const share = Math.ceil(this.queue.length / (idle.length - i));
      const batch: Queued[] = [];
      let bytes = 0;
      for (let k = 0; k < this.queue.length && batch.length < share; ) {
        const q = this.queue[k];
        if (isHeavy(q)) {
          if (batch.length > 0 || heavySlots === 0) {
            k++;
            continue;
          }
          heavySlots--;
          batch.push(...this.queue.splice(k, 1));
          break;
        }
        if (batch.length > 0 && bytes + q.job.body.byteLength > BATCH_BYTES) break;
        bytes += q.job.body.byteLength;
        batch.push(...this.queue.splice(k, 1));
      }
      if (batch.length === 0) continue;
      const t = idle[i];
      t.heavy = isHeavy(batch[0]);
      for (const q of batch) t.inFlight.set(q.id, q);
      t.worker.postMessage(
        batch.map((q) => ({ id: q.id, job: q.job })),
        batch.map((q) => q.job.body.buffer as ArrayBuffer),
      );
    }
  }

  private spawn(): Promise<void> {
    return new Promise((started) => {
      const worker = new Worker(workerEntry('score-worker', import.meta.url), { eval: true });
      worker.unref();
      const thread: Thread = { worker, ready: false, inFlight: new Map(), heavy: false };
      this.live.push(thread);
      let failure = '';
      worker.on('message', (m: { ready: true } | { id: number; outcome: JobOutcome }) => {
        if ('ready' in m) {
          thread.ready = true;
          started();
        } else {
          const q = thread.inFlight.get(m.id);
          thread.inFlight.delete(m.id);
          if (thread.inFlight.size === 0) thread.heavy = false;
          this.counts.pooled++;
          q?.resolve(m.outcome);
        }
        this.pump();
      });
      worker.on('error', (err) => {
        failure = err.message;
      });
      worker.on('exit', (code) => {
        this.live.splice(this.live.indexOf(thread), 1);
        const why = failure || `exit code ${code}`;
        for (const q of thread.inFlight.values()) {
          q.resolve({ ok: false, status: 500, code: 'internal_error', message: `internal error: the scoring thread stopped (${why}); the request was not scored` });
        }
        if (!this.closing) {
          process.stderr.write(`canvasgym serve: a scoring thread stopped (${why})${thread.ready ? '; starting another' : ' before it started; scoring without it'}\n`);
          if (thread.ready) {
            this.counts.restarts++;
            void this.spawn();
          }
          this.pump();
        }
        started();
      });
    });
  }
}
