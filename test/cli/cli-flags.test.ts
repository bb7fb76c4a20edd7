// Flag values and output paths, checked before a command starts its work: every refusal is one line and exit code 2
// (src/cli/flags.ts). In process through runCli, the code bin/canvasgym.js runs (cli-main.test.ts spawns it).
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { inProcessCli, ONE_LINE } from '../helpers/cli.ts';
import { randomCheckpoint } from '../helpers/checkpoint.ts';
import { RUBRIC_NAMES } from '../../src/diagram/reward/presets.ts';

const task = (i: number) => ({ id: `t${i}`, prompt: `Draw Client ${i} then API.`, spec: { entities: [`Client ${i}`, 'API'], edges: [[`Client ${i}`, 'API']] } });
const sftRow = (i: number) =>
  JSON.stringify({ messages: [{ role: 'user', content: `Draw A${i}.` }, { role: 'assistant', content: `{"actions": [{"type": "create_shape", "id": "a", "text": "A${i}"}]}` }] });

const dir = mkdtempSync(join(tmpdir(), 'cli-flags-'));
/** A plain file where a folder, or a file's folder, is expected. */
const file = join(dir, 'a-file');
writeFileSync(file, 'x');
/** A folder where a file is expected. */
const folder = join(dir, 'a-folder.svg');
mkdirSync(folder);
const completion = join(dir, 'completion.json');
writeFileSync(completion, JSON.stringify({ actions: [{ type: 'create_shape', id: 'a', shape: 'rectangle', x: 0, y: 0, w: 100, h: 50, text: 'A' }] }));
const tasks = join(dir, 'tasks.jsonl');
writeFileSync(tasks, [task(0), task(1)].map((t) => JSON.stringify(t)).join('\n') + '\n');
const sftData = join(dir, 'train.jsonl');
writeFileSync(sftData, [0, 1, 2].map(sftRow).join('\n') + '\n');
/** Passes grpo's --init check; the refusals come before any training. */
const init = await randomCheckpoint([task(0).prompt]);
const scoreRows = join(dir, 'rows.jsonl');
writeFileSync(scoreRows, JSON.stringify({ prompt: 'Draw A', completion: '{"actions": []}' }) + '\n');

const refused = async (args: string[], message: string) => {
  expect(await inProcessCli(args)).toEqual({ code: 2, stdout: '', stderr: `canvasgym: ${message}\n` });
};

/** Every output flag of every command, with the ways a path can be wrong. */
const OUTPUT_CASES: [string, string[]][] = [
  ['render --out in a missing folder', ['render', '--in', completion, '--out', '/nonexistent/x.svg']],
  ['render --out under a file', ['render', '--in', completion, '--out', join(file, 'x.png')]],
  ['render --out a folder', ['render', '--in', completion, '--out', folder]],
  ['render --renderer tldraw --out in a missing folder', ['render', '--renderer', 'tldraw', '--in', completion, '--out', '/nonexistent/x.png']],
  ['render --sample --out a file', ['render', '--sample', '--out', file]],
  ['render --sample --out under a file', ['render', '--sample', '--out', join(file, 'samples')]],
  ['tasks --out in a missing folder', ['tasks', '--split', 'train', '--n', '3', '--out', '/nonexistent/x.jsonl']],
  ['tasks --out under a file', ['tasks', '--split', 'train', '--n', '3', '--out', join(file, 'x.jsonl')]],
  ['tasks --out a folder', ['tasks', '--split', 'train', '--n', '3', '--out', folder]],
  ['score --out in a missing folder', ['score', '--reward', 'seed', '--in', scoreRows, '--out', '/nonexistent/x.jsonl']],
  ['score --out a folder', ['score', '--reward', 'seed', '--in', scoreRows, '--out', folder]],
  ['teacher --out a file', ['teacher', '--tasks', tasks, '--out', file]],
  ['teacher --out under a file', ['teacher', '--tasks', tasks, '--out', join(file, 'teacher')]],
  ['eval --out a file', ['eval', '--policy', 'scripted', '--tasks', tasks, '--out', file]],
  ['eval --out under a file', ['eval', '--policy', 'scripted', '--tasks', tasks, '--out', join(file, 'eval')]],
  ['grpo --out a file', ['grpo', '--init', init, '--tasks', tasks, '--out', file]],
  ['grpo --out under a file', ['grpo', '--init', init, '--tasks', tasks, '--out', join(file, 'grpo')]],
  ['sft --out a file', ['sft', '--data', sftData, '--out', file]],
  ['sft --out under a file', ['sft', '--data', sftData, '--out', join(file, 'sft')]],
  ['run --runs-dir a file', ['run', '--preset', 'quick', '--runs-dir', file]],
  ['run --runs-dir under a file', ['run', '--preset', 'quick', '--runs-dir', join(file, 'runs')]],
  ['run with its run folder a file', ['run', '--preset', 'quick', '--runs-dir', dir, '--name', 'a-file']],
];

describe('output paths', () => {
  it.each(OUTPUT_CASES.map(([what, args]) => ({ what, args })))('$what: one line, exit code 2, nothing written', async ({ args }) => {
    const before = readdirSync(dir).sort();
    const r = await inProcessCli(args);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(ONE_LINE);
    expect(r.stderr).toMatch(/^canvasgym: --(out|runs-dir)\b/);
    expect(readdirSync(dir).sort()).toEqual(before);
  });

  // Root may write anywhere, so only another user sees a folder without write permission refused.
  it.skipIf(process.getuid?.() === 0)('a folder without write permission: one line, exit code 2', async () => {
    const locked = join(dir, 'locked');
    mkdirSync(locked);
    chmodSync(locked, 0o500);
    for (const args of [
      ['tasks', '--split', 'train', '--n', '3', '--out', join(locked, 'x.jsonl')],
      ['sft', '--data', sftData, '--out', join(locked, 'sft')],
    ]) {
      const r = await inProcessCli(args);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/^canvasgym: --out: cannot write .* is not writable \(EACCES\)\n$/);
    }
  });
});

describe('flag values', () => {
  it('an integer flag takes a safe integer, in every command', async () => {
    const out = join(dir, 'never-made');
    await refused(['sft', '--data', sftData, '--out', out, '--seed', 'abc'], '--seed must be an integer, got "abc"');
    await refused(['sft', '--data', sftData, '--out', out, '--seed', '1.5'], '--seed must be an integer, got "1.5"');
    await refused(['sft', '--data', sftData, '--out', out, '--seed', '1e300'], '--seed must be an integer, got "1e300"');
    await refused(['sft', '--data', sftData, '--out', out, '--steps', ''], '--steps must be a positive integer, got ""');
    await refused(['grpo', '--init', init, '--out', out, '--seed', 'abc'], '--seed must be an integer, got "abc"');
    await refused(['grpo', '--init', init, '--out', out, '--num-tasks', '2.5'], '--num-tasks must be a positive integer, got "2.5"');
    await refused(['teacher', '--tasks', tasks, '--out', out, '--seed', 'NaN'], '--seed must be an integer, got "NaN"');
    await refused(['eval', '--policy', 'scripted', '--split', 'heldout', '--out', out, '--samples', '0x'], '--samples must be a positive integer, got "0x"');
    await refused(['tasks', '--split', 'train', '--n', '1e400'], '--n must be an integer >= 1, got "1e400"');
    expect(existsSync(out)).toBe(false);
  });

  it('sft --vocab-size outside what the tokenizer can hold', async () => {
    const rule = '--vocab-size must be an integer from 260 to 65536 (256 bytes and the chat tokens, then merges)';
    await refused(['sft', '--data', sftData, '--out', join(dir, 'never-made'), '--vocab-size', '10'], `${rule}, got "10"`);
    await refused(['sft', '--data', sftData, '--out', join(dir, 'never-made'), '--vocab-size', '1000000'], `${rule}, got "1000000"`);
  });

  it('--threads at most the cores, in sft and grpo', async () => {
    const over = String(availableParallelism() + 1);
    const rule = `--threads must be an integer from 1 to ${availableParallelism()} (this machine's cores), got "${over}"`;
    await refused(['sft', '--data', sftData, '--out', join(dir, 'never-made'), '--threads', over], rule);
    await refused(['grpo', '--init', init, '--out', join(dir, 'never-made'), '--threads', over], rule);
  });

  it('shares in [0, 1) and top_p at most 1', async () => {
    await refused(['sft', '--data', sftData, '--out', join(dir, 'never-made'), '--warmup-ratio', '1'], '--warmup-ratio must be a number in [0, 1), got "1"');
    await refused(['grpo', '--init', init, '--out', join(dir, 'never-made'), '--warmup-ratio', '5'], '--warmup-ratio must be a number in [0, 1), got "5"');
    await refused(['grpo', '--init', init, '--out', join(dir, 'never-made'), '--top-p', '2'], '--top-p must be a number in (0, 1], got "2"');
  });

  it('eval --rubrics names at least one rubric', async () => {
    await refused(['eval', '--policy', 'scripted', '--tasks', tasks, '--out', join(dir, 'never-made'), '--rubrics', ' , '], `--rubrics names no rubric: give one or more of ${RUBRIC_NAMES.join(', ')}, comma-separated`);
  });

  it("serve's rules between settings, said with the flags", async () => {
    await refused(['serve', '--port', '0', '--headers-timeout', '40'], '--headers-timeout (40 s) must not exceed --request-timeout (30 s)');
    await refused(['serve', '--port', '0', '--max-body-bytes', '4096', '--max-held-body-bytes', '2048'], '--max-held-body-bytes (2048) must be at least --max-body-bytes (4096)');
  });

  it('schema --max-actions must leave room for an action', async () => {
    await refused(['schema', '--max-actions', '0'], '--max-actions must be a positive integer, got "0"');
    await refused(['schema', '--max-actions', 'many'], '--max-actions must be a positive integer, got "many"');
    const r = await inProcessCli(['schema', '--max-actions', '3']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).properties.actions.maxItems).toBe(3);
  });
});

describe('input rows over 1 MiB', () => {
  // The case: one 50 MB line. It is refused when the first MiB of it has been read, before any training.
  const huge = join(dir, 'huge.jsonl');
  const bigPrompt = 'Draw '.repeat(10_000_000);
  writeFileSync(huge, JSON.stringify({ messages: [{ role: 'user', content: bigPrompt }, { role: 'assistant', content: '{}' }] }) + '\n');
  const hugeTasks = join(dir, 'huge-tasks.jsonl');
  writeFileSync(hugeTasks, JSON.stringify(task(0)) + '\n' + JSON.stringify({ ...task(1), prompt: bigPrompt }) + '\n');
  const tooLong = (path: string, line: number) => `${path} line ${line}: longer than 1,048,576 bytes, the most one row may hold`;

  it('sft --data, grpo --tasks, teacher --tasks and eval --tasks refuse the row, naming its line', async () => {
    const out = join(dir, 'never-made');
    await refused(['sft', '--data', huge, '--out', out, '--preset', 'tiny'], tooLong(huge, 1));
    await refused(['grpo', '--init', init, '--tasks', hugeTasks, '--out', out], tooLong(hugeTasks, 2));
    await refused(['teacher', '--tasks', hugeTasks, '--out', out], tooLong(hugeTasks, 2));
    await refused(['eval', '--policy', 'scripted', '--tasks', hugeTasks, '--out', out], tooLong(hugeTasks, 2));
  });
});
