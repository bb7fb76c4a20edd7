// The command line: what a mistyped command gives, --version, and a closed pipe. The pipe and one mistyped flag are
// spawned, as a user runs them (bin/canvasgym.js); the rest runs in process through the same runCli, since each
// spawn starts Node and tsx afresh (seconds on 2 cores).
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { inProcessCli, spawnCli, spawnCliIntoHead } from '../helpers/cli.ts';

describe('canvasgym command line', () => {
  it('refuses an unknown flag with one line naming it and where the help is, exit code 2', () => {
    expect(spawnCli(['tasks', '--split', 'train', '--n', '3', '--outt', 'x.jsonl'])).toEqual({
      code: 2,
      stdout: '',
      stderr: "canvasgym: unknown option '--outt' (Did you mean --out?); see canvasgym tasks --help\n",
    });
  });

  it('refuses an unknown command, a missing required option and a missing flag value the same way', async () => {
    expect(await inProcessCli(['frobnicate'])).toEqual({ code: 2, stdout: '', stderr: "canvasgym: unknown command 'frobnicate'; see canvasgym --help\n" });
    expect(await inProcessCli(['teacher', '--out', 'x'])).toEqual({
      code: 2,
      stdout: '',
      stderr: "canvasgym: required option '--tasks <file>' not specified; see canvasgym teacher --help\n",
    });
    expect(await inProcessCli(['score', '--reward'])).toEqual({
      code: 2,
      stdout: '',
      stderr: "canvasgym: option '--reward <preset>' argument missing; see canvasgym score --help\n",
    });
    expect(await inProcessCli(['schema', 'extra'])).toMatchObject({ code: 2, stderr: expect.stringMatching(/^canvasgym: too many arguments for 'schema'.*; see canvasgym schema --help\n$/) });
  });

  it('prints its version from package.json, and help on request, with exit code 0', async () => {
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(await inProcessCli(['--version'])).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
    const help = await inProcessCli(['tasks', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: canvasgym tasks \[options\]/);
  });

  it('ends quietly, exit code 0, when the reader of its output stops early (| head -1)', async () => {
    const tasks = await spawnCliIntoHead(['tasks', '--split', 'train', '--n', '3000']);
    expect(JSON.parse(tasks.firstLine)).toHaveProperty('prompt');
    expect(tasks.stderr).toBe('');
    expect(tasks.code).toBe(0);

    const dir = mkdtempSync(join(tmpdir(), 'cli-main-'));
    const row = JSON.stringify({ prompt: 'Draw a client', completion: '{"actions": []}' });
    writeFileSync(join(dir, 'rows.jsonl'), `${row}\n`.repeat(5000));
    const score = await spawnCliIntoHead(['score', '--reward', 'seed', '--in', join(dir, 'rows.jsonl')]);
    expect(JSON.parse(score.firstLine)).toHaveProperty('reward');
    expect(score.stderr).toBe('');
    expect(score.code).toBe(0);
  });
});
