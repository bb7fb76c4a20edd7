// Every command's input files, broken in the ways files get broken (cut short, bad UTF-8, binary, NUL bytes, stray \r,
// huge numbers, wrong types, deep nesting, rows over the cap...), with fixed seeds. Whatever the file holds, a command must end
// with exit code 0 or a one-line refusal (exit code 2), never a stack trace, and keep or refuse rows as documented:
// score answers every non-blank line with a row, in order; a task or SFT file is taken whole or refused naming a line.
// In process through runCli (bin/canvasgym.js runs the same), since a spawn costs seconds here.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { MAX_ROW_BYTES } from '../../src/io/jsonl.ts';
import { mulberry32 } from '../../src/random.ts';
import { readSftData } from '../../src/train/sft.ts';
import { inProcessCli, ONE_LINE, type CliResult } from '../helpers/cli.ts';
import { diagramEnv } from '../../src/diagram/diagram-env.ts';
import { SYSTEM_PROMPT } from '../../src/diagram/language/prompt.ts';
import { saveCheckpoint } from '../../src/model/checkpoint.ts';
import { GPT } from '../../src/model/gpt.ts';
import { trainTokenizer } from '../../src/model/tokenizer.ts';

/** The same cases every run. */
const rng = mulberry32;
type Rng = () => number;
const below = (r: Rng, n: number) => Math.floor(r() * n);
const oneOf = <T>(r: Rng, xs: readonly T[]): T => xs[below(r, xs.length)];
const insertAt = (b: Buffer, i: number, what: Buffer) => Buffer.concat([b.subarray(0, i), what, b.subarray(i)]);

// JSON-level mutations work on one JSON document: a line of a JSONL file, or the whole of a .json file.
type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Path = (string | number)[];
function pathsOf(v: Json, path: Path = [], out: Path[] = []): Path[] {
  if (path.length > 0) out.push(path);
  if (path.length < 6 && v !== null && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) pathsOf(x, [...path, Array.isArray(v) ? Number(k) : k], out);
  }
  return out;
}
function setAt(root: Json, path: Path, value: Json | undefined): void {
  let v = root as Record<string | number, Json>;
  for (const k of path.slice(0, -1)) v = v[k] as Record<string | number, Json>;
  const last = path[path.length - 1];
  if (value !== undefined) v[last] = value;
  else if (Array.isArray(v)) v.splice(Number(last), 1);
  else delete v[last];
}
/** Raw JSON text spliced in where a value goes (JSON.stringify cannot write 1e400 or a 100,000-deep array). */
const RAW = '\u0000raw\u0000';
function onDocument(b: Buffer, jsonl: boolean, r: Rng, change: (doc: Json, r: Rng) => string | void): Buffer {
  const docs = jsonl ? b.toString('utf8').split('\n') : [b.toString('utf8')];
  const candidates = docs.map((d, i) => i).filter((i) => docs[i].trim().startsWith('{') || docs[i].trim().startsWith('['));
  if (candidates.length === 0) return b;
  const i = oneOf(r, candidates);
  let doc: Json;
  try {
    doc = JSON.parse(docs[i]) as Json;
  } catch {
    return b;
  }
  const raw = change(doc, r);
  const text = JSON.stringify(doc);
  docs[i] = raw === undefined ? text : text.replace(JSON.stringify(RAW), raw);
  return Buffer.from(docs.join('\n'));
}
const randomPath = (doc: Json, r: Rng): Path | undefined => {
  const paths = pathsOf(doc);
  return paths.length ? oneOf(r, paths) : undefined;
};

interface Mutation {
  name: string;
  apply(b: Buffer, jsonl: boolean, r: Rng): Buffer;
}
const MUTATIONS: Mutation[] = [
  { name: 'cut short', apply: (b, _, r) => b.subarray(0, below(r, b.length)) },
  {
    name: 'bad UTF-8',
    apply: (b, _, r) => {
      for (let k = 0; k < 3; k++) b = insertAt(b, below(r, b.length), Buffer.from(oneOf(r, [[0xff], [0xc3], [0xed, 0xa0, 0x80], [0xf0, 0x9f], [0xc0, 0xaf]])));
      return b;
    },
  },
  {
    name: 'lone CR',
    apply: (b, _, r) => {
      for (let k = 0; k < 3; k++) b = insertAt(b, below(r, b.length), Buffer.from('\r'));
      return b;
    },
  },
  { name: 'BOM and CRLF', apply: (b) => Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(b.toString('latin1').replaceAll('\n', '\r\n'), 'latin1')]) },
  {
    name: 'huge number',
    apply: (b, _, r) => {
      const text = b.toString('utf8');
      const numbers = [...text.matchAll(/(?<![\w.])-?\d+(\.\d+)?([eE][-+]?\d+)?/g)];
      if (numbers.length === 0) return b;
      const m = oneOf(r, numbers);
      const huge = oneOf(r, ['1e400', '-1e400', '123456789012345678901234567890', '1e-400', '-0', '9007199254740993', '0.' + '9'.repeat(400)]);
      return Buffer.from(text.slice(0, m.index) + huge + text.slice(m.index! + m[0].length));
    },
  },
  {
    name: 'wrong type',
    apply: (b, jsonl, r) =>
      onDocument(b, jsonl, r, (doc, r) => {
        const path = randomPath(doc, r);
        if (path) setAt(doc, path, oneOf<Json>(r, [null, 0, -1, 1.5, 1e308, '', 'x', [], {}, true, [1, 'a'], { a: { b: [] } }]));
      }),
  },
  {
    name: 'field dropped',
    apply: (b, jsonl, r) =>
      onDocument(b, jsonl, r, (doc, r) => {
        const path = randomPath(doc, r);
        if (path) setAt(doc, path, undefined);
      }),
  },
  {
    name: 'deep nesting',
    apply: (b, jsonl, r) =>
      onDocument(b, jsonl, r, (doc, r) => {
        const path = randomPath(doc, r) ?? ['deep'];
        setAt(doc, path, RAW);
        const depth = oneOf(r, [1_000, 10_000, 100_000]);
        const [open, close] = oneOf(r, [['[', ']'], ['{"a":', '}']]);
        // Mostly closed (valid JSON, only deep), sometimes left open.
        return open.repeat(depth) + '1' + (r() < 0.8 ? close.repeat(depth) : '');
      }),
  },
  {
    name: 'not an object',
    apply: (b, jsonl, r) => {
      const lines = b.toString('utf8').split('\n');
      lines[below(r, jsonl ? lines.length : 1)] = oneOf(r, ['null', '[]', '42', '"text"', '{}', '{"a":', 'true', '[{"prompt": "x"}]']);
      return Buffer.from(lines.join('\n'));
    },
  },
  {
    name: 'line repeated',
    apply: (b, _, r) => {
      const lines = b.toString('utf8').split('\n');
      const i = below(r, lines.length);
      lines.splice(i, 0, lines[i]);
      return Buffer.from(lines.join('\n'));
    },
  },
  {
    name: 'row over the cap',
    apply: (b, jsonl, r) =>
      onDocument(b, jsonl, r, (doc) => {
        if (doc !== null && typeof doc === 'object' && !Array.isArray(doc)) doc.pad = 'x'.repeat(MAX_ROW_BYTES);
      }),
  },
  // A file that is not text at all, as the teacher once took for 18 prompts of garbage.
  { name: 'binary', apply: (_, __, r) => Buffer.from(Array.from({ length: 3000 }, () => below(r, 256))) },
  {
    name: 'NUL bytes',
    apply: (b, _, r) => {
      for (let k = 0; k < 2; k++) b = insertAt(b, below(r, b.length), Buffer.from([0]));
      return b;
    },
  },
  { name: 'blank', apply: (_, __, r) => Buffer.from(oneOf(r, ['', '\n', ' \n\t\n\r\n', '\uFEFF'])) },
  {
    name: 'bytes flipped',
    apply: (b, _, r) => {
      const c = Buffer.from(b);
      for (let k = 0; k < 4 && c.length > 0; k++) c[below(r, c.length)] ^= 1 << below(r, 8);
      return c;
    },
  },
  {
    name: 'odd characters in a string',
    apply: (b, jsonl, r) =>
      onDocument(b, jsonl, r, (doc, r) => {
        const strings = pathsOf(doc).filter((p) => typeof p.reduce<Json>((v, k) => (v as Record<string, Json>)[k], doc) === 'string');
        if (strings.length === 0) return;
        const path = oneOf(r, strings);
        setAt(doc, path, RAW);
        return oneOf(r, ['"a\\u0000b"', '"\\ud800"', '"\u2028\u2029"', '"\\uFFFF\uFFFE"', '"' + '\u0301'.repeat(5000) + '"', '"\\"}]}"']);
      }),
  },
];
/** The line numbers of the non-blank lines, as the readers define lines: \n (or \r\n) ends one, a BOM is not text. */
function rowLines(b: Buffer): number[] {
  const body = b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf ? b.subarray(3) : b;
  const lines: number[] = [];
  body.toString('utf8').split('\n').forEach((line, i) => {
    if (line.trim() !== '') lines.push(i + 1);
  });
  return lines;
}
const jsonlRows = (path: string) => (existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as Record<string, unknown>) : []);

interface Target {
  command: string;
  /** The valid file the mutations start from. */
  base: () => Buffer;
  jsonl: boolean;
  args: (input: string, out: string) => string[];
  /** What is wrong with this result beyond the common rules, or undefined. */
  check: (r: CliResult, input: string, out: string, bytes: Buffer) => string | undefined;
  /** Exit codes allowed besides 0 and 2, with the line that must come with them. */
  alsoAllowed?: { code: number; stderr: RegExp };
}

const dir = mkdtempSync(join(tmpdir(), 'cli-fuzz-'));
let cases = 0;
const fresh = (name: string) => join(dir, `${name}-${cases}`);
const names = (r: CliResult, input: string) => r.stderr.includes(input) || /^canvasgym: --(tasks|data|in): /.test(r.stderr);
const namesARealLine = (r: CliResult, bytes: Buffer): string | undefined => {
  const m = /line (\d+)/.exec(r.stderr);
  const lineCount = bytes.toString('utf8').split('\n').length;
  return m && Number(m[1]) > lineCount ? `names line ${m[1]} of a file of ${lineCount} lines` : undefined;
};
/** A task file taken whole (exit 0) must have given one result per row. */
const wholeFile = (got: number, bytes: Buffer, what: string) => {
  const want = rowLines(bytes).length;
  return got === want ? undefined : `${want} task rows but ${got} ${what}`;
};

const files: Record<string, string> = {};
const row = (prompt: string, completion: string, spec?: unknown) => JSON.stringify({ prompt, completion, ...(spec ? { spec } : {}) });
const box = (id: string, x: number, text: string) => ({ type: 'create_shape', id, shape: 'rectangle', x, y: 40, w: 140, h: 60, text });
const answer = (names: string[]) =>
  JSON.stringify({ actions: [...names.map((n, k) => box(n.toLowerCase(), 40 + 200 * k, n)), ...names.slice(1).map((n, k) => ({ type: 'connect', from: names[k].toLowerCase(), to: n.toLowerCase() }))] });
const sftRow = (names: string[]) => JSON.stringify({ messages: [{ role: 'user', content: `Draw ${names.join(' then ')}.` }, { role: 'assistant', content: answer(names) }] });

beforeAll(async () => {
  files.tasks = join(dir, 'tasks.jsonl');
  expect((await inProcessCli(['tasks', '--split', 'train', '--n', '3', '--seed', '5', '--out', files.tasks])).code).toBe(0);
  files.evalDir = join(dir, 'eval-base');
  const evaluated = await inProcessCli(['eval', '--policy', 'scripted', '--tasks', files.tasks, '--out', files.evalDir, '--no-images', '--no-progress', '--rubrics', 'seed']);
  expect(evaluated.code, evaluated.stderr).toBe(0);
  files.init = join(dir, 'init');
  const tokenizer = trainTokenizer([...Array(20).fill(SYSTEM_PROMPT), 'Draw a client and an API.'], { vocabSize: 300 });
  const model = await GPT.create({ vocabSize: tokenizer.vocabSize, nCtx: 512, nEmbd: 16, nLayer: 1, nHead: 2 }, { seed: 1, threads: 1 });
  saveCheckpoint(files.init, { model, tokenizer });
  await model.dispose();
});

const TARGETS: Target[] = [
  {
    command: 'score',
    base: () =>
      Buffer.from(
        [
          row('Draw a client and an API', answer(['Client', 'API']), { entities: ['Client', 'API'], edges: [['Client', 'API']] }),
          row('Draw a cache', 'Sure! ' + answer(['Cache'])),
          row('Draw a queue', '{"actions": [{"type": "connect", "from": "a", "to": "b"}]}'),
        ].join('\n') + '\n',
      ),
    jsonl: true,
    args: (input, out) => ['score', '--reward', 'seed', '--in', input, '--out', out],
    check: (r, _, out, bytes) => {
      if (r.code !== 0) return `exit code ${r.code}: score answers a bad line with an error row`;
      const got = jsonlRows(out);
      const want = rowLines(bytes);
      if (got.length !== want.length) return `${want.length} non-blank lines but ${got.length} rows out`;
      const k = got.findIndex((g, i) => ('error' in g ? g.line !== want[i] : typeof g.reward !== 'number' || g.reward < 0 || g.reward > 1));
      return k < 0 ? undefined : `row ${k + 1} out: ${JSON.stringify(got[k]).slice(0, 200)} for line ${want[k]}`;
    },
  },
  {
    command: 'teacher',
    base: () => readFileSync(files.tasks),
    jsonl: true,
    args: (input, out) => ['teacher', '--tasks', input, '--out', out, '--attempts', '1', '--no-progress'],
    alsoAllowed: { code: 1, stderr: /^canvasgym teacher: no row accepted: [^\n]+\n$/ },
    check: (r, _, out, bytes) => (r.code === 0 ? wholeFile(jsonlRows(join(out, 'train.jsonl')).length + jsonlRows(join(out, 'rejected.jsonl')).length, bytes, 'attempts') : namesARealLine(r, bytes)),
  },
  {
    command: 'eval',
    base: () => readFileSync(files.tasks),
    jsonl: true,
    args: (input, out) => ['eval', '--policy', 'scripted', '--tasks', input, '--out', out, '--no-images', '--no-progress', '--rubrics', 'seed'],
    check: (r, input, out, bytes) => (r.code === 0 ? wholeFile(jsonlRows(join(out, 'rollouts.jsonl')).length, bytes, 'rollouts') : names(r, input) ? namesARealLine(r, bytes) : `refused without naming the file: ${r.stderr}`),
  },
  {
    // --resume into an empty folder: the task file is read and checked, then the run stops before training (which
    // would take seconds a case) with the resume refusal, the sign that the file was taken.
    command: 'grpo',
    base: () => readFileSync(files.tasks),
    jsonl: true,
    args: (input, out) => ['grpo', '--init', files.init, '--tasks', input, '--out', out, '--resume', '--threads', '1'],
    check: (r, input, _, bytes) => (r.code !== 2 ? `exit code ${r.code}` : /--resume: .* has no checkpoint/.test(r.stderr) || names(r, input) ? namesARealLine(r, bytes) : `neither taken nor refused by name: ${r.stderr}`),
  },
  {
    command: 'sft',
    base: () => Buffer.from([['Client', 'API'], ['Cache'], ['Queue', 'Worker', 'Logs'], ['Auth', 'Database']].map(sftRow).join('\n') + '\n'),
    jsonl: true,
    args: (input, out) => ['sft', '--data', input, '--out', out, '--resume', '--preset', 'tiny', '--threads', '1'],
    check: (r, input, _, bytes) => {
      if (r.code !== 2) return `exit code ${r.code}`;
      if (/--resume: .* has no checkpoint/.test(r.stderr)) {
        const kept = readSftData(input, diagramEnv.spec).length;
        return kept === rowLines(bytes).length ? undefined : `${rowLines(bytes).length} rows but ${kept} kept`;
      }
      return names(r, input) ? namesARealLine(r, bytes) : `refused without naming the file: ${r.stderr}`;
    },
  },
  {
    command: 'render',
    base: () => Buffer.from(JSON.stringify({ prompt: 'Draw a client and an API', completion: answer(['Client', 'API']) })),
    jsonl: false,
    args: (input, out) => ['render', '--in', input, '--out', `${out}.svg`],
    check: (r, _, out) => (r.code === 0 && !existsSync(`${out}.svg`) ? 'exit code 0 and no picture' : undefined),
  },
  {
    command: 'eval --compare (rollouts.jsonl)',
    base: () => readFileSync(join(files.evalDir, 'rollouts.jsonl')),
    jsonl: true,
    args: (input) => ['eval', '--compare', files.evalDir, join(input, '..')],
    check: () => undefined,
  },
  {
    command: 'eval --compare (metrics.json)',
    base: () => readFileSync(join(files.evalDir, 'metrics.json')),
    jsonl: false,
    args: (input) => ['eval', '--compare', join(input, '..'), files.evalDir],
    check: () => undefined,
  },
];

const SEEDS = [1, 2, 3, 4];

describe('every command on broken input files', () => {
  it('ends with exit code 0 or one line and exit code 2, keeping or refusing rows as documented', async () => {
    const misbehaving: string[] = [];
    /** Exit codes per command: a fuzz whose cases all end the same way tests little. */
    const outcomes: Record<string, Record<number, number>> = {};
    const started = performance.now();
    for (const target of TARGETS) {
      for (const mutation of MUTATIONS) {
        for (const seed of SEEDS) {
          cases++;
          const what = `${target.command}, ${mutation.name}, seed ${seed}`;
          const bytes = mutation.apply(target.base(), target.jsonl, rng(seed * 1000 + cases));
          // eval --compare reads a directory: the broken file goes into a copy of the base one.
          const caseDir = fresh('case');
          mkdirSync(caseDir);
          const input = join(caseDir, target.command.includes('metrics') ? 'metrics.json' : target.command.includes('rollouts') ? 'rollouts.jsonl' : 'input');
          writeFileSync(input, bytes);
          for (const other of ['metrics.json', 'rollouts.jsonl']) if (target.command.startsWith('eval --compare') && !input.endsWith(other)) writeFileSync(join(caseDir, other), readFileSync(join(files.evalDir, other)));
          const out = fresh('out');
          let r: CliResult;
          try {
            r = await inProcessCli(target.args(input, out));
          } catch (err) {
            misbehaving.push(`${what}: stack trace: ${String(err).split('\n')[0].slice(0, 200)}`);
            continue;
          }
          const seen = (outcomes[target.command] ??= {});
          seen[r.code ?? -1] = (seen[r.code ?? -1] ?? 0) + 1;
          const allowed = r.code === 0 || r.code === 2 || (target.alsoAllowed?.code === r.code && target.alsoAllowed.stderr.test(r.stderr));
          const problem = !allowed
            ? `exit code ${r.code}: ${r.stderr.slice(0, 200)}`
            : r.code === 2 && !ONE_LINE.test(r.stderr)
              ? `not one line: ${r.stderr.slice(0, 300)}`
              : /\n\s+at /.test(r.stderr)
                ? `stack trace on stderr: ${r.stderr.slice(0, 300)}`
                : target.check(r, input, out, bytes);
          if (problem) misbehaving.push(`${what}: ${problem}`);
        }
      }
    }
    const seconds = (performance.now() - started) / 1000;
    const codes = Object.entries(outcomes).map(([command, c]) => `${command}: ${Object.entries(c).map(([code, n]) => `${n}x exit ${code}`).join(', ')}`);
    process.stderr.write(`cli fuzz: ${cases} cases tried, ${misbehaving.length} misbehaving, ${seconds.toFixed(1)} s\n  ${codes.join('\n  ')}\n`);
    expect(misbehaving).toEqual([]);
  }, 300_000);
});
