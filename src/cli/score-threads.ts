// `canvasgym score` of a large file on several threads: the main thread reads the file, hands chunks of lines to the
// scoring threads (score-thread.ts) and writes their answers in input order. Every chunk goes through scoreChunk, as
// on the single-threaded path, so the output is the same bytes; only the wall time changes.
// A thread takes about 0.3 s of a core to load the reward before it scores its first chunk; until one has answered,
// the main thread scores the chunks no thread is free for itself. On 2 cores that start-up is otherwise time the file
// waits, and for a cheap reward (seed) it was what made 2 threads slower than 1 on a file of a second or two. Once
// the threads answer, the main thread only reads and writes: scoring there too would hold back the reading that
// feeds them.
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
  /** The chunk's output rows, one JSON line each, joined by newlines. */
  text: string;
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
  return { id, text: out.join('\n'), rows: out.length, failed };
}

/** Lines per message: enough that messaging is a small share of the work (a row scores in ~150 µs), few enough that
 *  threads stay evenly loaded near the end of a file. */
const CHUNK_LINES = 256;
/** Chunks a thread holds at once: one scoring, one waiting, so it never idles between messages. */
const IN_FLIGHT_PER_THREAD = 2;
/** Chunks handed out ahead of the oldest one not yet written, per thread. */
const AHEAD_PER_THREAD = 4;

export async function scoreFileThreaded(path: string, reward: string, rubric: Rubric, threads: number, out: JsonlWriter): Promise<{ rows: number; failed: number }> {
  const workers = Array.from({ length: threads }, () => new Worker(workerEntry('score-thread', import.meta.url), { eval: true, workerData: { reward } }));
  const done = new Map<number, ScoredChunk>();
  const load = new Map<Worker, number>();
  let wake: (() => void) | null = null;
  let failure: Error | null = null;
  let answered = false;
  for (const w of workers) {
    load.set(w, 0);
    w.on('message', (chunk: ScoredChunk) => {
      answered = true;
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
  const writeReady = async () => {
    for (let chunk = done.get(nextToWrite); chunk; chunk = done.get(nextToWrite)) {
      done.delete(nextToWrite++);
      rows += chunk.rows;
      failed += chunk.failed;
      await out.writeJson(chunk.text);
    }
  };
  const send = async (lines: LineChunk['lines']) => {
    for (;;) {
      if (failure) throw failure;
      // Chunks scored but not yet written wait for the oldest: past a few per thread, a slow chunk (a huge row) would
      // otherwise let the others pile up the whole file in memory behind it.
      const idle = nextId - nextToWrite < AHEAD_PER_THREAD * threads ? workers.find((w) => load.get(w)! < IN_FLIGHT_PER_THREAD) : undefined;
      if (idle) {
        load.set(idle, load.get(idle)! + 1);
        idle.postMessage({ id: nextId++, lines } satisfies LineChunk);
        return;
      }
      if (!answered && nextId - nextToWrite < AHEAD_PER_THREAD * threads) {
        const id = nextId++;
        done.set(id, scoreChunk(rubric, { id, lines }));
        await writeReady();
        return;
      }
      await waitForWork();
      await writeReady();
    }
  };
  try {
    let lines: LineChunk['lines'] = [];
    for (const line of readLinesSync(path, { badText: 'mark' })) {
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
  return { rows, failed };
}
