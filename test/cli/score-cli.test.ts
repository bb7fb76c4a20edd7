import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { seedRubric } from '../../src/diagram/reward/seed.ts';
import { LIMITS } from '../../src/diagram/tasks/limits.ts';
import { getRubric } from '../../src/diagram/reward/presets.ts';
import { JsonlWriter } from '../../src/io/jsonl.ts';
import { scoreFileThreaded } from '../../src/cli/score-threads.ts';

const BIN = fileURLToPath(new URL('../../bin/canvasgym.js', import.meta.url));
const cli = (args: string[], input = '') => spawnSync('node', [BIN, ...args], { input, encoding: 'utf8' });

const shape = (id: string, x: number, text: string) => ({ type: 'create_shape', id, shape: 'rectangle', x, y: 0, w: 80, h: 40, text });
const good = JSON.stringify({ actions: [shape('c', 0, 'Client'), shape('d', 200, 'Database'), { type: 'connect', from: 'c', to: 'd' }] });
const rows = [
  { prompt: 'Draw a client and a database', completion: good, id: 'first' },
  'this line is not JSON',
  { prompt: 'Draw a client', completion: 'Sure: ' + good + ' done', spec: { entities: ['Client'], edges: [] } },
  { prompt: 'no completion here' },
  { prompt: 'bad spec', completion: good, spec: { entities: [], edges: [] } },
  { prompt: 'Draw it', completion: '{"actions": [{"type": "create_shape", "id": "a", "shape": "text", "x": NaN, "y": 0, "w": 1, "h": 1}]}' },
];
const input = rows.map((r) => (typeof r === 'string' ? r : JSON.stringify(r))).join('\n') + '\n\n';

describe('canvasgym score', () => {
  it('writes one row per input row, in order, with per-line errors, and exits 0', () => {
    const run = cli(['score', '--reward', 'seed'], input);
    expect(run.status).toBe(0);
    const out = run.stdout.trimEnd().split('\n').map((l) => JSON.parse(l));
    expect(out).toHaveLength(rows.length);
    const expected = seedRubric.score({ prompt: 'Draw a client and a database', completion: good });
    expect(out[0]).toEqual({ ...(rows[0] as object), reward: expected.reward, components: expected.components, errors: [] });
    expect(out[1]).toMatchObject({ line: 2 });
    expect(out[1].error).toMatch(/^line 2: not valid JSON/);
    expect(out[2].reward).toBeGreaterThan(0);
    expect(out[2].spec).toEqual({ entities: ['Client'], edges: [] });
    expect(out[3]).toMatchObject({ prompt: 'no completion here', line: 4, error: 'line 4: missing field "completion"' });
    expect(out[4].error).toMatch(/^line 5: invalid field "spec\.entities"/);
    expect(out[5]).toMatchObject({ reward: 0, errors: ['action 0: x must be a finite number'] });
    expect(run.stderr).toMatch(/6 rows scored with seed.*3 with errors/);
  });

  it('reads --in and writes --out', () => {
    const dir = mkdtempSync(join(tmpdir(), 'canvasgym-score-'));
    writeFileSync(join(dir, 'in.jsonl'), input);
    const run = cli(['score', '--reward', 'seed', '--in', join(dir, 'in.jsonl'), '--out', join(dir, 'out.jsonl')]);
    expect(run.status).toBe(0);
    expect(run.stdout).toBe('');
    const lines = readFileSync(join(dir, 'out.jsonl'), 'utf8').trimEnd().split('\n');
    expect(lines.map((l) => JSON.parse(l).prompt ?? JSON.parse(l).line)).toEqual([
      'Draw a client and a database', 2, 'Draw a client', 'no completion here', 'bad spec', 'Draw it',
    ]);
  });

  it('writes each scored row as the input row with the score\'s fields last, whatever the input\'s spacing, and replaces a score field the input has in place', () => {
    const dir = mkdtempSync(join(tmpdir(), 'canvasgym-score-'));
    const row = { prompt: 'Draw a client and a database', completion: good, id: 'x' };
    const texts = [
      JSON.stringify(row),
      `  { "prompt" : ${JSON.stringify(row.prompt)},\t"completion": ${JSON.stringify(good)}, "id": "x" }  `,
      JSON.stringify({ reward: 7, ...row, errors: ['mine'] }),
    ];
    writeFileSync(join(dir, 'in.jsonl'), texts.join('\n') + '\n');
    expect(cli(['score', '--reward', 'seed', '--in', join(dir, 'in.jsonl'), '--out', join(dir, 'out.jsonl')]).status).toBe(0);
    const out = readFileSync(join(dir, 'out.jsonl'), 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l));
    const { reward, components, errors } = seedRubric.score(row);
    expect(out[0]).toEqual({ ...row, reward, components, errors });
    expect(Object.keys(out[0])).toEqual(['prompt', 'completion', 'id', 'reward', 'components', 'errors']);
    expect(out[1]).toEqual(out[0]);
    expect(Object.keys(out[2])).toEqual(['reward', 'prompt', 'completion', 'id', 'errors', 'components']);
    expect(out[2]).toEqual({ ...out[0] });
  });

  it('refuses a row beyond the row limits with its own error and scores the others (issue 19: S3, C3)', () => {
    const entities = Array.from({ length: 80_000 }, (_, i) => `Service ${i}`);
    const lines = [
      JSON.stringify({ prompt: 'Draw a client and a database', completion: good }),
      // 2.5 MB: a chain that once held scoring for 18 s.
      JSON.stringify({ prompt: 'Draw the chain', completion: good, spec: { entities, edges: entities.slice(1).map((e, i) => [entities[i], e]) } }),
      // Writing this row back once crashed the command with a RangeError, and no row was written.
      `{"prompt": "x", "completion": "y", "extra": ${'['.repeat(5000)}${']'.repeat(5000)}}`,
      JSON.stringify({ prompt: 'p'.repeat(LIMITS.promptChars + 1), completion: good }),
      JSON.stringify({ prompt: 'Draw a client', completion: good, spec: { entities: ['Client', 'x'.repeat(LIMITS.nameChars + 1)], edges: [] } }),
      JSON.stringify({ prompt: 'Draw a client', completion: good, spec: { entities: entities.slice(0, LIMITS.entities), edges: [] } }),
    ];
    // A refused row is written back with its fields, the chain's 2.5 MB included.
    const run = spawnSync('node', [BIN, 'score', '--reward', 'strong'], { input: lines.join('\n') + '\n', encoding: 'utf8', maxBuffer: 1 << 26 });
    expect(run.status).toBe(0);
    const out = run.stdout.trimEnd().split('\n').map((l) => JSON.parse(l));
    expect(out).toHaveLength(lines.length);
    expect(out[0].reward).toBeGreaterThan(0);
    expect(out[1].error).toBe('line 2: invalid field "spec.entities": 80,000 entities; the limit is 200');
    expect(out[2]).toEqual({ line: 3, error: 'line 3: nests arrays and objects more than 64 deep, the limit' });
    expect(out[3].error).toBe('line 4: field "prompt": 20,001 characters; the limit is 20,000');
    expect(out[4].error).toBe('line 5: invalid field "spec.entities.1": 101 characters; the limit is 100');
    expect(typeof out[5].reward).toBe('number');
    expect(run.stderr).toMatch(/6 rows scored with strong.*4 with errors/);
  });

  it('scores a file on threads to the same bytes as on the main thread, in order; the CLI starts them only for a file worth it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cg-score-threads-'));
    const file = join(dir, 'rows.jsonl');
    // Distinct rows (the prompt numbers them) with every kind of line, blank lines and errors included: over 16 chunks
    // of 256 lines, where the main thread has timed its pace.
    const lines: string[] = [];
    for (let i = 0; lines.length < 6000; i++) {
      for (const r of rows) lines.push(typeof r === 'string' ? `${r} ${i}` : JSON.stringify({ ...r, prompt: `${r.prompt} #${i}` }));
      if (i % 7 === 0) lines.push('');
    }
    writeFileSync(file, lines.join('\n') + '\n');
    const out1 = join(dir, 'out-1.jsonl');
    const one = cli(['score', '--reward', 'task', '--in', file, '--out', out1, '--threads', '1']);
    expect(one.status).toBe(0);
    const scored = lines.filter((l) => l.trim() !== '').length;
    const oneText = readFileSync(out1, 'utf8');
    const oneLines = oneText.trimEnd().split('\n');
    expect(oneLines).toHaveLength(scored);
    expect(JSON.parse(oneLines[scored - 1]).prompt).toBe(JSON.parse(lines.filter((l) => l.trim() !== '')[scored - 1]).prompt);
    expect(one.stderr).toMatch(new RegExp(`${scored} rows scored with task in`));
    // The file is a fraction of a second of work: asked for 2 threads, the CLI stays on one.
    const out2 = join(dir, 'out-2.jsonl');
    const two = cli(['score', '--reward', 'task', '--in', file, '--out', out2, '--threads', '2']);
    expect(two.status).toBe(0);
    expect(two.stderr).toMatch(new RegExp(`${scored} rows scored with task in`));
    expect(readFileSync(out2, 'utf8')).toBe(oneText);
    // Told that any work pays for a thread, the scorer starts one: the same bytes.
    const out3 = join(dir, 'out-3.jsonl');
    const writer = JsonlWriter.open(out3, { batch: true });
    let threaded;
    try {
      threaded = await scoreFileThreaded(file, 'task', getRubric('task'), 2, writer, 0);
    } finally {
      writer.close();
    }
    expect(threaded).toEqual({ rows: scored, failed: Number(one.stderr.match(/(\d+) with errors/)![1]), threads: 2 });
    expect(readFileSync(out3, 'utf8')).toBe(oneText);
  });

  it('refuses --out naming the --in file, leaving it as it was, and a bad flag before --out is emptied', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cg-score-same-'));
    const file = join(dir, 'rows.jsonl');
    writeFileSync(file, input);
    // Another spelling of the same file: the check is by the file, not by the text of the path.
    const sameFile = `${dir}/./rows.jsonl`;
    const same = cli(['score', '--reward', 'seed', '--in', file, '--out', sameFile]);
    expect(same.status).toBe(2);
    expect(same.stderr.trim()).toBe(`canvasgym: --out: ${sameFile} is the input file (--in ${file}); writing it would empty it before it is read`);
    expect(readFileSync(file, 'utf8')).toBe(input);
    const out = join(dir, 'kept.jsonl');
    writeFileSync(out, 'kept\n');
    const badRenderer = cli(['score', '--reward', 'seed', '--in', file, '--out', out, '--renderer', 'nope']);
    expect(badRenderer.status).toBe(2);
    expect(readFileSync(out, 'utf8')).toBe('kept\n');
  });

  it('refuses an unknown preset or a missing input file with a one-line usage error', () => {
    const unknown = cli(['score', '--reward', 'nope']);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toMatch(/unknown reward preset "nope": valid names are .*seed/);
    const missing = cli(['score', '--reward', 'seed', '--in', '/no/such/file.jsonl']);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/--in: no such file: \/no\/such\/file\.jsonl/);
  });
});
