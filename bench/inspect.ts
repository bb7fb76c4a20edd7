// How fast the inspector lists and filters a large run: a GRPO stage of 100,000 rollouts (rows of a real quick run,
// repeated with other steps, rewards and errors), served by `canvasgym inspect`'s app, timed over HTTP per page.
// Beside it, in the same process: parsing the whole file once, what a page would cost a server without an index.
//   npx tsx bench/inspect.ts [--rows 100000]
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startInspector } from '../src/inspect/app.ts';

const { values: args } = parseArgs({ options: { rows: { type: 'string', default: '100000' } } });
const n = Number(args.rows);
const work = mkdtempSync(join(tmpdir(), 'bench-inspect-'));
const runs = join(work, 'runs');
execFileSync(process.execPath, ['bin/canvasgym.js', 'run', '--preset', 'quick', '--runs-dir', join(work, 'made'), '--name', 'q', '--no-progress'], { stdio: 'ignore' });
mkdirSync(runs);
cpSync(join(work, 'made', 'q'), join(runs, 'big'), { recursive: true });

// Real rows (GRPO's own and the evaluations' completions, teacher answers among them), spread over 500 steps.
const grpoRows = readFileSync(join(runs, 'big', 'grpo', 'rollouts.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
const answers = readFileSync(join(runs, 'big', 'eval', 'teacher', 'rollouts.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l).completion as string);
const errors = [[], ['action 3: arrow cannot connect a shape to itself'], ['action 2: duplicate shape id: API'], ['invalid JSON: Unexpected end of JSON input']];
const lines: string[] = [];
for (let i = 0; i < n; i++) {
  const row = grpoRows[i % grpoRows.length];
  lines.push(JSON.stringify({ ...row, step: 1 + Math.floor(i / 200), sample: i % 8, completion: answers[i % answers.length], reward: (i * 7919) % 1000 / 1000, errors: errors[i % errors.length], finish_reason: i % 10 === 0 ? 'length' : 'stop' }));
}
writeFileSync(join(runs, 'big', 'grpo', 'rollouts.jsonl'), lines.join('\n') + '\n');
const bytes = Buffer.byteLength(lines.join('\n'));

const time = async (label: string, path: string) => {
  const t0 = performance.now();
  const res = await fetch(url + path);
  const body = await res.text();
  const ms = performance.now() - t0;
  const total = body.match(/<span class="total">(\d+)<\/span>/)?.[1] ?? '';
  console.log(`| ${label} | ${res.status} | ${total} | ${ms.toFixed(0)} ms |`);
  return ms;
};

const inspector = await startInspector({ runsDir: runs, host: '127.0.0.1', port: 0 });
const url = inspector.url.replace(/\/$/, '');
console.log(`${n} rollouts, ${(bytes / 1e6).toFixed(0)} MB; load ${loadavg()[0].toFixed(1)} (1-minute average at the start)\n`);
console.log('| page | status | matching | time |');
console.log('|---|---|---|---|');
await time('first page, cold (the file read and indexed)', '/run/big/stage/grpo');
await time('first page, warm', '/run/big/stage/grpo');
await time('error kind: self-arrow', '/run/big/stage/grpo?error=self-arrow');
await time(`step ${Math.ceil(n / 400)}, reward >= 0.5`, `/run/big/stage/grpo?step=${Math.ceil(n / 400)}&min=0.5`);
await time('component below: edges:0.5', '/run/big/stage/grpo?below=edges:0.5');
// Words of the rows' own shape labels, so that the searches find something.
const words = answers.flatMap((a) => [...a.matchAll(/"text":"([A-Za-z]+)/g)].map((m) => m[1].toLowerCase()));
await time(`text search "${words[0]}", first`, `/run/big/stage/grpo?q=${words[0]}`);
await time(`text search "${words[1]}", second`, `/run/big/stage/grpo?q=${words[1]}`);
await time(`sorted by reward, page ${Math.ceil(n / 100)}`, `/run/big/stage/grpo?sort=-reward&page=${Math.ceil(n / 100)}&per=50`);
await time('one rollout', `/run/big/stage/grpo/rollout/${Math.ceil(n * 0.77)}`);
await time('the run page (counts every stage)', '/run/big');
await inspector.close();

const t0 = performance.now();
let parsed = 0;
for (const l of readFileSync(join(runs, 'big', 'grpo', 'rollouts.jsonl'), 'utf8').split('\n')) if (l) parsed += JSON.parse(l) ? 1 : 0;
console.log(`\nbaseline, same process: reading and parsing the ${parsed} rows once (what each page costs without the index): ${(performance.now() - t0).toFixed(0)} ms`);
