// JSONL at the edges: read lines (file or stdin) as a stream with their line numbers; write rows one by one,
// each handed to the OS before the next, so a crashed run keeps every row it reported.
import { closeSync, createReadStream, fsyncSync, openSync, writeSync } from 'node:fs';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';

export interface Line {
  /** 1-based, counting every line of the input, blank ones included. */
  lineNumber: number;
  text: string;
}

/** The lines of a file, or of stdin when `path` is undefined or "-". Accepts \n and \r\n endings. */
export async function* readLines(path?: string): AsyncGenerator<Line> {
  const input: Readable = path === undefined || path === '-' ? process.stdin : createReadStream(path, { encoding: 'utf8' });
  const rl = createInterface({ input, crlfDelay: Infinity });
  let lineNumber = 0;
  try {
    for await (const text of rl) yield { lineNumber: ++lineNumber, text };
  } finally {
    rl.close();
  }
}

/** Parsed JSON rows of a JSONL file; blank lines are skipped, a bad line throws naming its number. */
export async function* readJsonl<T = unknown>(path?: string): AsyncGenerator<{ lineNumber: number; row: T }> {
  for await (const { lineNumber, text } of readLines(path)) {
    if (text.trim() === '') continue;
    let row: T;
    try {
      row = JSON.parse(text) as T;
    } catch (err) {
      throw new Error(`${path ?? 'stdin'} line ${lineNumber}: not valid JSON (${(err as Error).message})`);
    }
    yield { lineNumber, row };
  }
}

export interface JsonlWriterOptions {
  /** Keep what the file holds and add to it (resuming a job); the default starts the file afresh. */
  append?: boolean;
  /** fsync after every row: survives a machine crash, not only a process crash. Slower. */
  fsync?: boolean;
}

/** Writes one JSON row per line to a file or to stdout. */
export class JsonlWriter {
  private constructor(
    private readonly fd: number | null,
    private readonly sync: boolean,
  ) {}

  /** A writer to `path`, or to stdout when `path` is undefined or "-". */
  static open(path?: string, opts: JsonlWriterOptions = {}): JsonlWriter {
    if (path === undefined || path === '-') return new JsonlWriter(null, false);
    return new JsonlWriter(openSync(path, opts.append ? 'a' : 'w'), opts.fsync ?? false);
  }

  /** Writes the row and returns once it is handed over (waiting for stdout to drain when a pipe is full). */
  async write(row: unknown): Promise<void> {
    const line = JSON.stringify(row) + '\n';
    if (this.fd === null) {
      if (!process.stdout.write(line)) await once(process.stdout, 'drain');
      return;
    }
    writeSync(this.fd, line);
    if (this.sync) fsyncSync(this.fd);
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
  }
}
