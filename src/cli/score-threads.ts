// `canvasgym score` of a file on several threads: the main thread reads the file, scores chunks of lines itself and
// hands chunks to scoring threads (score-thread.ts) whenever one is free, and writes the answers in input order.
// Every chunk goes through scoreChunk, so the output is the same bytes on any number of threads; only the wall time
// changes.
// The main thread counts as one of the threads and scores whatever no other thread is free for: with two cores, two
// threads besides a reading main thread were three busy threads on two cores, slower than one thread for every
// reward (40,000 rows: seed 3.57 s against 2.85 s). Whether to start threads at all is measured, not guessed from the
// file's size: a thread takes about 0.3 s of a core to load the reward, and the cloning of chunks to and from it costs
// the main thread, so threads start only when the main thread's own pace on the first chunks says the rest of the
// file would take it longer than THREADS_PAY_S alone.
import { statSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { workerEntry } from '../io/worker-entry.ts';
import { readLinesSync, type JsonlWriter, type Line } from '../io/jsonl.ts';
import { scoreInputLine } from '../diagram/reward/rows.ts';
import type { Rubric } from '../diagram/reward/rubric.ts';

export interface LineChunk {
  id: number;
  lines: Line[];
}

export interface ScoredChunk {
  id: number;
  /** The chunk's output rows, one JSON line each: joined into one string, rows written from their input lines
   *  (cons strings) were flattened twice, once by the join and once by the write. */
  out: string[];
  rows: number;
  failed: number;
}

/** A chunk's output rows, on whichever thread scores it. */
export function scoreChunk(rubric: Rubric, { id, lines }: LineChunk): ScoredChunk {
  let failed = 0;
  const out = lines.map((line) => {
    const scored = scoreInputLine(rubric, line);
    if (!scored.ok) failed++;
    return scored.json ?? JSON.stringify(scored.row);
  });
  return { id, out, rows: out.length, failed };
}

/** Lines per message: enough that messaging is a small share of the work (a row scores in ~50-150 µs), few enough
 *  that threads stay evenly loaded near the end of a file. */
const CHUNK_LINES = 256;
/** Chunks a thread holds at once: one scoring, one waiting, so it never idles between messages. */
const IN_FLIGHT_PER_THREAD = 2;
/** Chunks handed out ahead of the oldest one not yet written, per thread. */
const AHEAD_PER_THREAD = 4;
/**
 * Seconds of work left for the main thread alone (at its measured pace) from which scoring threads start. Measured
 * on 2 cores (AMD EPYC Zen 5, bench/reward.ts rows, task reward): a second thread loses at 3-4 s of work (4.1 s
 * against 4.0), breaks even at 6 s and wins at 12 s (9.6 s against 12.5): a new thread's code is cold for its first
 * ~1.5 s (3x slower a chunk), and on 2 cores the main thread's garbage collector already uses much of the other core.
 */
export const THREADS_PAY_S = 8;
/** Chunks the main thread scores before it times its pace (its code is cold on the first: 3x slower), and chunks it
 *  times then. */
const CHUNKS_WARMING = 8;
const CHUNKS_TIMED = 8;

/** Scores the file at `path` on up to `threads` threads (the main one included), starting the others once the main
 *  thread's pace says the rest would take it over `paySeconds`; returns the threads it used. */
export async function scoreFileThreaded(
  path: string,
  reward: string,
  rubric: Rubric,
  threads: number,
  out: JsonlWriter,
  paySeconds = THREADS_PAY_S,
): Promise<{ rows: number; failed: number; threads: number }> {
  const fileBytes = statSync(path).size;
  const workers: Worker[] = [];
  const done = new Map<number, ScoredChunk>();
  const load = new Map<Worker, number>();
  let wake: (() => void) | null = null;
  let failure: Error | null = null;
  const startWorkers = () => {
    for (let t = 1; t < threads; t++) {
      const w = new Worker(workerEntry('score-thread', import.meta.url), { eval: true, workerData: { reward } });
      workers.push(w);
      load.set(w, 0);
      w.on('message', (chunk: ScoredChunk) => {
        load.set(w, load.get(w)! - 1);
        done.set(chunk.id, chunk);
        wake?.();
      });
      w.on('error', (err) => {
        failure ??= new Error(`a scoring thread failed: ${err.message}`, { cause: err });
        wake?.();
      });
      w.on('exit', (code) => {
        if (code !== 0) failure ??= new Error(`a scoring thread stopped (exit code ${code})`);
        wake?.();
      });
    }
  };
  const waitForWork = () =>
    new Promise<void>((resolve) => {
      wake = () => {
        wake = null;
        resolve();
      };
    });
  let rows = 0;
  let failed = 0;
  let nextId = 0;
  let nextToWrite = 0;
  // The main thread's pace: seconds spent scoring, and the input's characters (about its bytes) they covered.
  let ownSeconds = 0;
  let ownChars = 0;
  let charsRead = 0;
  const writeReady = async () => {
    for (let chunk = done.get(nextToWrite); chunk; chunk = done.get(nextToWrite)) {
      done.delete(nextToWrite++);
      rows += chunk.rows;
      failed += chunk.failed;
      for (const json of chunk.out) await out.writeJson(json);
    }
  };
  const send = async (lines: LineChunk['lines']) => {
    for (;;) {
      if (failure) throw failure;
      // Chunks scored but not yet written wait for the oldest: past a few per thread, a slow chunk (a huge row) would
      // otherwise let the others pile up the whole file in memory behind it.
      const room = nextId - nextToWrite < AHEAD_PER_THREAD * threads;
      const idle = room ? workers.find((w) => load.get(w)! < IN_FLIGHT_PER_THREAD) : undefined;
      if (idle) {
        load.set(idle, load.get(idle)! + 1);
        idle.postMessage({ id: nextId++, lines } satisfies LineChunk);
        return;
      }
      if (room) {
        const id = nextId++;
        const started = performance.now();
        done.set(id, scoreChunk(rubric, { id, lines }));
        if (id >= CHUNKS_WARMING) {
          ownSeconds += (performance.now() - started) / 1000;
          for (const line of lines) ownChars += line.text.length + 1;
        }
        if (threads > 1 && workers.length === 0 && id + 1 === CHUNKS_WARMING + CHUNKS_TIMED && ((fileBytes - charsRead) / ownChars) * ownSeconds > paySeconds) startWorkers();
        await writeReady();
        // The threads' answers arrive as events: without a turn of the event loop here, a thread's finished chunks
        // went unseen while the main thread read and scored on, and it idled (40 of 157 chunks on 2 threads).
        if (workers.length) await new Promise(setImmediate);
        return;
      }
      await waitForWork();
      await writeReady();
    }
  };
  try {
    let lines: LineChunk['lines'] = [];
    for (const line of readLinesSync(path, { badText: 'mark' })) {
      charsRead += line.text.length + 1;
      if (line.text.trim() === '' && !line.notText) continue;
      lines.push(line);
      if (lines.length === CHUNK_LINES) {
        await send(lines);
        lines = [];
      }
    }
    if (lines.length) await send(lines);
    while (nextToWrite < nextId) {
      if (failure) throw failure;
      if (!done.has(nextToWrite)) await waitForWork();
      await writeReady();
    }
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
  return { rows, failed, threads: 1 + workers.length };
}
