// A JSONL file read once and followed as it grows: each complete line is parsed into an entry when it first appears,
// so a page of a 100,000-row file filters what is in memory instead of reading the file again. A run still being
// written is read up to its last complete line; a file that shrank, was replaced or was rewritten in place (a resumed
// stage drops the rows after its checkpoint) is read again from the start. A line that does not parse (torn by a
// kill), or that is no rollout, is kept as unreadable under its line number rather than dropped.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

export type Entry<T> = { n: number; start: number; end: number } & ({ value: T } | { unreadable: string });

/** Bytes read at a time: a file of any size is indexed without one string of all of it. */
const CHUNK_BYTES = 8 << 20;
/** Bytes before the read position remembered, to notice a file rewritten in place and grown back past it. */
const MARK_BYTES = 64;

export class RowIndex<T> {
  private entries: Entry<T>[] = [];
  /** Bytes read through the last complete line, and the bytes just before that point. */
  private consumed = 0;
  private mark = Buffer.alloc(0);
  private lines = 0;
  private inode = -1;

  constructor(
    readonly path: string,
    /** The entry for a parsed row, or undefined to keep it as unreadable with `why`. */
    private readonly make: (row: Record<string, unknown>, n: number) => T | undefined,
    private readonly why = 'not a rollout row',
  ) {}

  /** The entries, brought up to date with the file (none while it does not exist). */
  all(): readonly Entry<T>[] {
    let fd: number;
    try {
      fd = openSync(this.path, 'r');
    } catch {
      this.reset(-1);
      return this.entries;
    }
    try {
      this.refresh(fd);
    } finally {
      closeSync(fd);
    }
    return this.entries;
  }

  /** The bytes of entries, as the file holds them (for export). */
  bytesOf(entries: readonly Entry<T>[]): Buffer[] {
    const fd = openSync(this.path, 'r');
    try {
      return entries.map((e) => {
        const b = Buffer.allocUnsafe(e.end - e.start);
        readSync(fd, b, 0, b.length, e.start);
        return b;
      });
    } finally {
      closeSync(fd);
    }
  }

  private refresh(fd: number): void {
    const st = fstatSync(fd);
    if (st.ino !== this.inode || st.size < this.consumed || !this.markHolds(fd)) this.reset(st.ino);
    while (this.consumed < st.size) {
      const bytes = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, st.size - this.consumed));
      const got = readSync(fd, bytes, 0, bytes.length, this.consumed);
      let end = bytes.subarray(0, got).lastIndexOf(10);
      if (end < 0) {
        // One line longer than a chunk: read on until its end, or stop at a last line not yet ended.
        if (this.consumed + got >= st.size) return;
        end = this.longLineEnd(fd, st.size);
        if (end < 0) return;
        this.addLines(this.readRange(fd, this.consumed, end + 1));
        continue;
      }
      this.addLines(bytes.subarray(0, end + 1));
    }
  }

  /** The end of the line that starts at `consumed`, past the first chunk, or -1 if the file ends first. */
  private longLineEnd(fd: number, size: number): number {
    const bytes = Buffer.allocUnsafe(CHUNK_BYTES);
    for (let at = this.consumed + CHUNK_BYTES; at < size; at += CHUNK_BYTES) {
      const got = readSync(fd, bytes, 0, bytes.length, at);
      const nl = bytes.subarray(0, got).indexOf(10);
      if (nl >= 0) return at + nl;
    }
    return -1;
  }

  private readRange(fd: number, start: number, end: number): Buffer {
    const b = Buffer.allocUnsafe(end - start);
    readSync(fd, b, 0, b.length, start);
    return b;
  }

  /** Adds the complete lines of `bytes`, which start at `consumed` and end with a newline. */
  private addLines(bytes: Buffer): void {
    let start = 0;
    for (let nl = bytes.indexOf(10); nl >= 0; nl = bytes.indexOf(10, start)) {
      const n = ++this.lines;
      const line = bytes.subarray(start, nl).toString('utf8');
      const range = { n, start: this.consumed + start, end: this.consumed + nl };
      start = nl + 1;
      if (line.trim() === '') continue;
      this.entries.push({ ...range, ...this.entryOf(line, n) });
    }
    this.consumed += bytes.length;
    this.mark = Buffer.from(bytes.subarray(Math.max(0, bytes.length - MARK_BYTES)));
  }

  private entryOf(line: string, n: number): { value: T } | { unreadable: string } {
    let row: unknown;
    try {
      row = JSON.parse(line);
    } catch {
      return { unreadable: 'not JSON (a line torn by a kill, or not a JSONL row)' };
    }
    if (!row || typeof row !== 'object' || Array.isArray(row)) return { unreadable: this.why };
    try {
      const value = this.make(row as Record<string, unknown>, n);
      return value === undefined ? { unreadable: this.why } : { value };
    } catch (err) {
      return { unreadable: `${this.why} (${(err as Error).message})` };
    }
  }

  private markHolds(fd: number): boolean {
    if (this.mark.length === 0) return true;
    const now = Buffer.allocUnsafe(this.mark.length);
    const got = readSync(fd, now, 0, now.length, this.consumed - this.mark.length);
    return got === now.length && now.equals(this.mark);
  }

  private reset(inode: number): void {
    this.entries = [];
    this.consumed = 0;
    this.mark = Buffer.alloc(0);
    this.lines = 0;
    this.inode = inode;
  }
}
