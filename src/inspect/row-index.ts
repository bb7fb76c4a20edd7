// A JSONL file read once and followed as it grows: each complete line is parsed into an entry when it first appears,
// so a page of a 100,000-row file filters what is in memory instead of reading the file again. A run still being
// written is read up to its last complete line; a file that shrank or was replaced (a resumed stage drops the rows
// after its checkpoint) is read again from the start. A line that does not parse (torn by a kill) is kept as
// unreadable, under its line number, rather than dropped.
import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';

export type Entry<T> = { n: number; value: T } | { n: number; unreadable: string };

export class RowIndex<T> {
  private entries: Entry<T>[] = [];
  /** Bytes read through the last complete line. */
  private consumed = 0;
  private lines = 0;
  private inode = -1;

  constructor(
    readonly path: string,
    /** The entry for a parsed row, or undefined to keep it as unreadable with `why`. */
    private readonly make: (row: Record<string, unknown>, n: number) => T | undefined,
    private readonly why = 'not a rollout row',
  ) {}

  /** The entries, brought up to date with the file. */
  all(): readonly Entry<T>[] {
    this.refresh();
    return this.entries;
  }

  private refresh(): void {
    if (!existsSync(this.path)) {
      this.reset(-1);
      return;
    }
    const st = statSync(this.path);
    if (st.ino !== this.inode || st.size < this.consumed) this.reset(st.ino);
    if (st.size === this.consumed) return;
    const fd = openSync(this.path, 'r');
    try {
      const bytes = Buffer.allocUnsafe(st.size - this.consumed);
      const got = readSync(fd, bytes, 0, bytes.length, this.consumed);
      const end = bytes.subarray(0, got).lastIndexOf(10);
      if (end < 0) return;
      const text = bytes.subarray(0, end).toString('utf8');
      for (const line of text.split('\n')) this.add(line);
      this.consumed += end + 1;
    } finally {
      closeSync(fd);
    }
  }

  private add(line: string): void {
    const n = ++this.lines;
    if (line.trim() === '') return;
    let row: unknown;
    try {
      row = JSON.parse(line);
    } catch {
      this.entries.push({ n, unreadable: 'not JSON (a line torn by a kill, or not a JSONL row)' });
      return;
    }
    const value = row && typeof row === 'object' && !Array.isArray(row) ? this.make(row as Record<string, unknown>, n) : undefined;
    this.entries.push(value === undefined ? { n, unreadable: this.why } : { n, value });
  }

  private reset(inode: number): void {
    this.entries = [];
    this.consumed = 0;
    this.lines = 0;
    this.inode = inode;
  }
}
