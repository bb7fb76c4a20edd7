// JSONL at the edges: read lines (file or stdin) as a stream with their line numbers; write rows, by default each
// handed to the OS before the next, so a crashed run keeps every row it reported (a batching writer hands over each
// turn of the event loop's rows together, and a process killed outright loses that turn's).
import { closeSync, createReadStream, existsSync, fsyncSync, ftruncateSync, openSync, readFileSync, readSync, writeSync } from 'node:fs';
import { isUtf8 } from 'node:buffer';
import { once } from 'node:events';
import type { Readable } from 'node:stream';

export interface Line {
  /** 1-based, counting every line of the input, blank ones included. */
  lineNumber: number;
  text: string;
  /** With `badText: 'mark'`: what makes the line not text (not UTF-8, a NUL byte); its text is then what a lenient
   *  decoder reads, for nothing but an error row. */
  notText?: string;
}

/** The most bytes one row of an input file (a task, a teacher row) may hold. The largest row the task suite or the
 *  teacher writes is a few kilobytes; a row of megabytes is a mistake, and training on one would take gigabytes. */
export const MAX_ROW_BYTES = 1 << 20;

/** An input file that breaks what JSONL promises (a row that is not JSON, or longer than allowed, or not text): the
 *  user's to fix. */
export class JsonlError extends Error {}

export interface ReadOptions {
  /** A longer line is refused as soon as it passes this, before it is held whole. */
  maxLineBytes?: number;
  /** A line that is not UTF-8 text (or holds a NUL byte): a JsonlError naming it ('throw', the default), or a line
   *  with `notText` set, for readers that answer every line with a row of its own ('mark'). */
  badText?: 'throw' | 'mark';
}

/** Cuts bytes into lines. Only \n ends a line, and a \r just before it goes with it: a lone \r is part of the line
 *  (JSON allows it as whitespace between tokens), so that a stray one cannot split a row in two. */
class LineCutter {
  private parts: Buffer[] = [];
  private bytes = 0;
  private lineNumber = 0;

  constructor(
    private readonly source: string,
    private readonly maxLineBytes: number,
    private readonly badText: 'throw' | 'mark' = 'throw',
  ) {}

  /** The lines that `chunk` ends; its unended tail waits for the next chunk. The caller hands over the chunk. */
  *push(chunk: Buffer): Generator<Line> {
    // A UTF-8 byte-order mark (what some Windows editors put first) is not part of the first row.
    let start = this.lineNumber === 0 && this.bytes === 0 && chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf ? 3 : 0;
    for (let nl = chunk.indexOf(10, start); nl !== -1; nl = chunk.indexOf(10, start)) {
      this.take(chunk.subarray(start, nl));
      yield this.cut(true);
      start = nl + 1;
    }
    this.take(chunk.subarray(start));
  }

  /** The last line, when the input does not end with a newline. */
  *end(): Generator<Line> {
    if (this.bytes > 0) yield this.cut(false);
  }

  private take(part: Buffer): void {
    if (part.length === 0) return;
    this.bytes += part.length;
    if (this.bytes > this.maxLineBytes) {
      throw new JsonlError(
        `${this.source} line ${this.lineNumber + 1}: longer than ${this.maxLineBytes.toLocaleString('en')} bytes, the most one row may hold`,
      );
    }
    this.parts.push(part);
  }

  private cut(newline: boolean): Line {
    let line = this.parts.length === 1 ? this.parts[0] : Buffer.concat(this.parts);
    if (newline && line.length > 0 && line[line.length - 1] === 13) line = line.subarray(0, line.length - 1);
    this.parts = [];
    this.bytes = 0;
    this.lineNumber++;
    const notText = whyNotText(line);
    if (notText && this.badText === 'throw') throw new JsonlError(`${this.source} line ${this.lineNumber}: ${notText}`);
    return { lineNumber: this.lineNumber, text: line.toString('utf8'), ...(notText && { notText }) };
  }
}

/** Every text input is UTF-8 without NUL bytes: a binary file or another encoding would otherwise read as rows of
 *  U+FFFD that a task or prompt file accepts as text. Undefined for text, else what is wrong. */
function whyNotText(bytes: Buffer): string | undefined {
  const nul = bytes.indexOf(0);
  if (nul !== -1) return `not text: a NUL byte at byte ${nul + 1} (a binary file?)`;
  if (!isUtf8(bytes)) return 'not text: not valid UTF-8 (a binary file, or text in another encoding?)';
  return undefined;
}

/** A whole text file (what one input holds, such as a completion to render), checked as every line readLines gives. */
export function readTextFileSync(path: string): string {
  const bytes = readFileSync(path);
  const notText = whyNotText(bytes);
  if (notText) throw new JsonlError(`${path}: ${notText}`);
  return bytes.toString('utf8');
}

/** "-" (or no path) is stdin for a reader, stdout for a writer. */
const isStdio = (path?: string) => path === undefined || path === '-';

/** The lines of a file, or of stdin when `path` is undefined or "-". Accepts \n and \r\n endings. */
export async function* readLines(path?: string, opts: ReadOptions = {}): AsyncGenerator<Line> {
  const input: Readable = isStdio(path) ? process.stdin : createReadStream(path!);
  const cutter = new LineCutter(path ?? 'stdin', opts.maxLineBytes ?? Infinity, opts.badText);
  for await (const chunk of input) yield* cutter.push(chunk as Buffer);
  yield* cutter.end();
}

/** readLines for a file, without waiting on the event loop. */
export function* readLinesSync(path: string, opts: ReadOptions = {}): Generator<Line> {
  const fd = openSync(path, 'r');
  const cutter = new LineCutter(path, opts.maxLineBytes ?? Infinity, opts.badText);
  try {
    for (;;) {
      // A fresh buffer each read: the cutter keeps the unended tail of one read while the next comes in.
      const chunk = Buffer.allocUnsafe(1 << 16);
      const n = readSync(fd, chunk);
      if (n === 0) break;
      yield* cutter.push(chunk.subarray(0, n));
    }
    yield* cutter.end();
  } finally {
    closeSync(fd);
  }
}

/** Parsed JSON rows of a JSONL file, each at most MAX_ROW_BYTES; blank lines are skipped, a bad line throws a
 *  JsonlError naming its number. */
export async function* readJsonl<T = unknown>(path?: string): AsyncGenerator<{ lineNumber: number; row: T }> {
  for await (const { lineNumber, text } of readLines(path, { maxLineBytes: MAX_ROW_BYTES })) {
    if (text.trim() === '') continue;
    let row: T;
    try {
      row = JSON.parse(text) as T;
    } catch (err) {
      throw new JsonlError(`${path ?? 'stdin'} line ${lineNumber}: not valid JSON (${(err as Error).message})`);
    }
    yield { lineNumber, row };
  }
}

export interface JsonlWriterOptions {
  /** Keep what the file holds and add to it (resuming a job); the default starts the file afresh. */
  append?: boolean;
  /** fsync after every row: survives a machine crash, not only a process crash. Slower. */
  fsync?: boolean;
  /**
   * To a file: hand the rows written in one turn of the event loop to the OS together, at the latest when the loop
   * turns (or at 1 MiB, or at close), instead of one write call per row. A process killed outright loses that turn's
   * rows; an exception still closes the writer and keeps them.
   */
  batch?: boolean;
}

/** Bytes of pending rows at which a batching writer hands them over without waiting for the loop to turn. */
const BATCH_BYTES = 1 << 20;

const NEWLINE = Buffer.from('\n');

/** Writes all of `bytes` (a write to a file may take less than it is given). */
function writeAllSync(fd: number, bytes: Buffer): void {
  for (let done = 0; done < bytes.length; ) done += writeSync(fd, bytes, done, bytes.length - done);
}

/** Writes one JSON row per line to a file or to stdout. */
export class JsonlWriter {
  /**
   * Rows not yet handed over (batch), encoded as they come, and whether a hand-over is scheduled. Each row goes
   * into the buffer as UTF-8 at once: a string built of many rows (+=) made the hand-over flatten and re-encode it,
   * 0.6 s of `score`'s 2.9 s on 40,000 rows (85 MB).
   */
  private pending: Buffer | null = null;
  private used = 0;
  private scheduled = false;
  /** What a scheduled hand-over threw, for the next write or close to throw. */
  private failure: { error: unknown } | null = null;

  private constructor(
    private readonly fd: number | null,
    private readonly sync: boolean,
    private readonly batch: boolean,
  ) {}

  /** A writer to `path`, or to stdout when `path` is undefined or "-". */
  static open(path?: string, opts: JsonlWriterOptions = {}): JsonlWriter {
    if (isStdio(path)) return new JsonlWriter(null, false, false);
    return new JsonlWriter(openSync(path!, opts.append ? 'a' : 'w'), opts.fsync ?? false, opts.batch ?? false);
  }

  /** Writes the row and returns once it is handed over (waiting for stdout to drain when a pipe is full), or queued (batch). */
  async write(row: unknown): Promise<void> {
    return this.writeJson(JSON.stringify(row));
  }

  /** write for a row serialised already: `json` is one JSON value on one line, without its newline. */
  async writeJson(json: string): Promise<void> {
    if (this.fd === null) {
      if (!process.stdout.write(json + '\n')) await once(process.stdout, 'drain');
      return;
    }
    if (!this.batch) {
      writeSync(this.fd, json + '\n');
      if (this.sync) fsyncSync(this.fd);
      return;
    }
    this.throwFailure();
    // A UTF-16 unit takes at most 3 bytes of UTF-8 (a surrogate pair, two units, 4).
    const most = json.length * 3 + 1;
    if (this.used + most > BATCH_BYTES) this.handOver();
    if (most > BATCH_BYTES) {
      writeAllSync(this.fd, Buffer.from(json));
      writeAllSync(this.fd, NEWLINE);
      if (this.sync) fsyncSync(this.fd);
      return;
    }
    this.pending ??= Buffer.allocUnsafe(BATCH_BYTES);
    this.used += this.pending.write(json, this.used);
    this.pending[this.used++] = 0x0a;
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => {
        this.scheduled = false;
        try {
          this.handOver();
        } catch (error) {
          this.failure = { error };
        }
      });
    }
  }

  private handOver(): void {
    if (this.used === 0 || this.fd === null || this.pending === null) return;
    const bytes = this.pending.subarray(0, this.used);
    this.used = 0;
    writeAllSync(this.fd, bytes);
    if (this.sync) fsyncSync(this.fd);
  }

  private throwFailure(): void {
    if (this.failure === null) return;
    const { error } = this.failure;
    this.failure = null;
    throw error;
  }

  close(): void {
    if (this.fd === null) return;
    try {
      this.throwFailure();
      this.handOver();
    } finally {
      closeSync(this.fd);
    }
  }
}

/** Rows already in a JSONL file. A torn last line (a kill mid-write) is cut off so that appending starts clean. */
export function readRowsForResume<T>(path: string): T[] {
  if (!existsSync(path)) return [];
  const text = readFileSync(path, 'utf8');
  const end = text.lastIndexOf('\n') + 1;
  if (end < text.length) {
    const fd = openSync(path, 'r+');
    ftruncateSync(fd, Buffer.byteLength(text.slice(0, end)));
    closeSync(fd);
  }
  const rows: T[] = [];
  text
    .slice(0, end)
    .split('\n')
    .forEach((line, i) => {
      if (!line.trim()) return;
      try {
        rows.push(JSON.parse(line) as T);
      } catch (err) {
        throw new Error(`${path} line ${i + 1}: not valid JSON (${(err as Error).message}); the dataset is damaged`);
      }
    });
  return rows;
}
