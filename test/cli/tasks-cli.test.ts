import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/main.ts';
import { UsageError } from '../../src/cli/usage-error.ts';
import { Task } from '../../src/diagram/tasks/spec.ts';
import { maxDistinct } from '../../src/diagram/tasks/generate.ts';

const run = async (args: string[]) => (await buildProgram()).exitOverride().parseAsync(['node', 'canvasgym', 'tasks', ...args]);

describe('canvasgym tasks', () => {
  it('writes N valid JSONL tasks to --out, the same for the same seed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tasks-cli-'));
    await run(['--split', 'ood', '--n', '25', '--seed', '4', '--kinds', 'tree,mixed', '--out', join(dir, 'a.jsonl')]);
    await run(['--split', 'ood', '--n', '25', '--seed', '4', '--kinds', 'tree,mixed', '--out', join(dir, 'b.jsonl')]);
    const a = readFileSync(join(dir, 'a.jsonl'), 'utf8');
    expect(readFileSync(join(dir, 'b.jsonl'), 'utf8')).toBe(a);
    const rows = a.trim().split('\n').map((l) => Task.parse(JSON.parse(l)));
    expect(rows).toHaveLength(25);
    expect(new Set(rows.map((r) => r.spec.kind))).toEqual(new Set(['tree', 'mixed']));
  });

  it('refuses --n beyond the split, naming the maximum', async () => {
    const max = maxDistinct('train', { difficulty: 1, kinds: ['decision'] });
    await expect(run(['--split', 'train', '--n', String(max + 1), '--difficulty', '1', '--kinds', 'decision'])).rejects.toThrow(
      new UsageError(`--n ${max + 1} is too large: there are only ${max} distinct train tasks at difficulty 1 of kinds decision; the maximum --n is ${max}`),
    );
  });

  it('names the bad flag', async () => {
    await expect(run(['--split', 'dev', '--n', '3'])).rejects.toThrow(/--split must be train or heldout or ood/);
    await expect(run(['--split', 'train', '--n', 'lots'])).rejects.toThrow(/--n must be an integer >= 1/);
    await expect(run(['--split', 'train', '--n', '3', '--kinds', 'chain,star'])).rejects.toThrow(/--kinds .*"star"/);
    await expect(run(['--split', 'train'])).rejects.toThrow(/--n is required/);
  });
});
