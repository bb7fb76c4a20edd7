import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { JsonlError, JsonlWriter, MAX_ROW_BYTES, readJsonl, readLines, readLinesSync, type Line } from '../../src/io/jsonl.ts';
import { inProcessCli } from '../helpers/cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'io-jsonl-'));
let files = 0;
const fileOf = (bytes: string | Buffer) => {
  const path = join(dir, `f${files++}.jsonl`);
  writeFileSync(path, bytes);
  return path;
};
const collect = async <T>(it: AsyncIterable<T>) => {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
};
/** Both readers, which must agree line for line. */
const lines = async (bytes: string | Buffer, maxLineBytes?: number): Promise<Line[]> => {
  const path = fileOf(bytes);
  const sync = [...readLinesSync(path, { maxLineBytes })];
  expect(await collect(readLines(path, { maxLineBytes }))).toEqual(sync);
  return sync;
};
const texts = async (bytes: string | Buffer) => (await lines(bytes)).map((l) => l.text);

describe('reading lines', () => {
  it('ends a line at \\n or \\r\\n only: a lone \\r stays in its line', async () => {
    expect(await texts('a\nb\r\nc')).toEqual(['a', 'b', 'c']);
    expect(await texts('{"a": 1,\r"b": 2}\nnext\n')).toEqual(['{"a": 1,\r"b": 2}', 'next']);
    expect(await texts('a\r\r\nb\r')).toEqual(['a\r', 'b\r']);
    expect(await lines('x\n\n\ny\n')).toEqual([
      { lineNumber: 1, text: 'x' },
      { lineNumber: 2, text: '' },
      { lineNumber: 3, text: '' },
      { lineNumber: 4, text: 'y' },
    ]);
    expect(await texts('')).toEqual([]);
  });

  it('drops a byte-order mark at the start', async () => {
    expect(await texts('\uFEFF{"a": 1}\n\uFEFF')).toEqual(['{"a": 1}', '\uFEFF']);
  });

  it('refuses a line that is not UTF-8 or holds a NUL byte, naming it; or marks it, for readers that answer each line', async () => {
    for (const [bytes, why] of [
      [Buffer.from('ok\n\u00e9t\u00e9\na\xffb\n', 'latin1'), /line 2: not text: not valid UTF-8/],
      [Buffer.from([0x6f, 0x6b, 0x0a, 0x61, 0x00, 0x62]), /line 2: not text: a NUL byte at byte 2/],
    ] as const) {
      const refused = lines(bytes);
      await expect(refused).rejects.toThrow(JsonlError);
      await expect(refused).rejects.toThrow(why);
    }
    const path = fileOf(Buffer.from([0x61, 0xff, 0x62, 0x0a, 0x7b, 0x7d, 0x0a, 0xc3]));
    const marked = [...readLinesSync(path, { badText: 'mark' })];
    expect(await collect(readLines(path, { badText: 'mark' }))).toEqual(marked);
    expect(marked.map((l) => [l.text, l.notText?.slice(0, 8)])).toEqual([['a\uFFFDb', 'not text'], ['{}', undefined], ['\uFFFD', 'not text']]);
  });

  it('keeps lines and characters whole across read chunks', async () => {
    const long = 'é'.repeat(100_000) + '\rz';
    const same = (a: string[], b: string[]) => expect(a.length === b.length && a.every((x, i) => x === b[i])).toBe(true);
    same(await texts(`${long}\n${long}\r\n€`), [long, long, '€']);
  });

  it('refuses a line longer than the cap, naming it, before holding it whole', async () => {
    const refused = lines('ok\n' + 'x'.repeat(11) + '\n', 10);
    await expect(refused).rejects.toThrow(JsonlError);
    await expect(refused).rejects.toThrow(/\.jsonl line 2: longer than 10 bytes, the most one row may hold$/);
    expect(await texts('x'.repeat(10) + '\r\n')).toEqual(['x'.repeat(10)]);
  });

  it('reads rows of at most MAX_ROW_BYTES as JSON, naming the line of a bad one', async () => {
    const path = fileOf('{"a": 1}\n\n[2]\r\n{"b":\r3}\n');
    expect(await collect(readJsonl(path))).toEqual([
      { lineNumber: 1, row: { a: 1 } },
      { lineNumber: 3, row: [2] },
      { lineNumber: 4, row: { b: 3 } },
    ]);
    await expect(collect(readJsonl(fileOf('{}\n{"a": \n')))).rejects.toThrow(/line 2: not valid JSON/);
    await expect(collect(readJsonl(fileOf(`{"a": "${'x'.repeat(MAX_ROW_BYTES)}"}\n`)))).rejects.toThrow(/line 1: longer than 1,048,576 bytes/);
  });
});

describe('canvasgym score on a file with a lone \\r', () => {
  it('gives one row per line, with the right line numbers', async () => {
    const row = (prompt: string) => JSON.stringify({ prompt, completion: '{"actions": []}' });
    const input = fileOf(`${row('first')}\n${row('second').replace(',', ',\r')}\nnot json\r\n${row('fourth')}\n`);
    const out = join(dir, 'scored.jsonl');
    expect((await inProcessCli(['score', '--reward', 'seed', '--in', input, '--out', out])).code).toBe(0);
    const rows = readFileSync(out, 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l));
    expect(rows.map((r) => r.prompt ?? r.line)).toEqual(['first', 'second', 3, 'fourth']);
  });
});

describe('a batching writer', () => {
  it('hands the rows of one turn of the event loop over together, in order, and the rest at close', async () => {
    const path = join(dir, `w${files++}.jsonl`);
    const out = JsonlWriter.open(path, { batch: true });
    await out.write({ n: 1 });
    await out.writeJson('{"n":2}');
    expect(readFileSync(path, 'utf8')).toBe('');
    await new Promise((resolve) => setImmediate(resolve));
    expect(readFileSync(path, 'utf8')).toBe('{"n":1}\n{"n":2}\n');
    await out.write({ n: 3 });
    out.close();
    expect(readFileSync(path, 'utf8')).toBe('{"n":1}\n{"n":2}\n{"n":3}\n');
  });

  it('writes rows of any size and any characters as the same bytes as one write of them all', async () => {
    const path = join(dir, `w${files++}.jsonl`);
    const out = JsonlWriter.open(path, { batch: true });
    // Past the 1 MiB buffer many times, rows of two- to four-byte characters, and rows bigger than the buffer itself.
    const texts = ['é', '→', '😀', 'a'].flatMap((c, k) => Array.from({ length: 300 }, (_, i) => c.repeat((i * 37 + k) % 5000)));
    texts.splice(500, 0, 'x'.repeat(1 << 20), '→'.repeat(400_000));
    for (const t of texts) await out.write({ t });
    out.close();
    expect(readFileSync(path, 'utf8')).toBe(texts.map((t) => JSON.stringify({ t }) + '\n').join(''));
  });
});

describe('a binary file given as text', () => {
  it('is refused by the teacher with one line naming its line, and nothing written', async () => {
    let s = 7;
    const random = Buffer.from(Array.from({ length: 3000 }, () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) >>> 24)));
    const out = join(dir, 'teacher-out');
    const r = await inProcessCli(['teacher', '--tasks', fileOf(random), '--out', out, '--no-progress']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^canvasgym: \S+\.jsonl line \d+: not text: (a NUL byte|not valid UTF-8)[^\n]+\n$/);
    expect(existsSync(out)).toBe(false);
  });

  it('is answered by score with an error row per line, as a line that is not JSON', async () => {
    const out = join(dir, 'scored.jsonl');
    const r = await inProcessCli(['score', '--reward', 'seed', '--in', fileOf(Buffer.from('{"prompt": "a\xff", "completion": "x"}\n\n{"prompt": "Draw A", "completion": "{}"}\n', 'latin1')), '--out', out]);
    expect(r.code).toBe(0);
    const rows = readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(rows[0]).toEqual({ line: 1, error: expect.stringMatching(/^line 1: not text: not valid UTF-8/) });
    expect(rows[1].reward).toBeTypeOf('number');
    expect(rows).toHaveLength(2);
  });
});
