// The command line two ways: spawned as a user runs it (bin/canvasgym.js), and in this process through runCli, the
// same code but without the cost of a fresh Node and tsx per call (a few seconds each on 2 cores).
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { vi } from 'vitest';
import { runCli } from '../../src/cli/main.ts';

export const BIN = fileURLToPath(new URL('../../bin/canvasgym.js', import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The real CLI in a child process. */
export function spawnCli(args: string[], input = ''): CliResult {
  const r = spawnSync(process.execPath, [BIN, ...args], { input, encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The real CLI in a child process whose stdout is closed by its reader after the first line (`| head -1`). */
export function spawnCliIntoHead(args: string[]): Promise<CliResult & { firstLine: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      if (stdout.includes('\n')) child.stdout.destroy();
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr, firstLine: stdout.split('\n')[0] }));
  });
}

/** The CLI in this process: its exit code, and what it wrote. A bug (an error main would print as a stack trace)
 *  rejects with that error. */
export async function inProcessCli(args: string[]): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => ((stdout += String(chunk)), true));
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => ((stderr += String(chunk)), true));
  try {
    const code = await runCli(['node', 'canvasgym', ...args]);
    // A command that finished but failed (teacher with no row accepted) sets the exit code the process ends with.
    return { code: code === 0 ? Number(process.exitCode ?? 0) : code, stdout, stderr };
  } finally {
    process.exitCode = undefined;
    out.mockRestore();
    err.mockRestore();
  }
}

/** What every refusal must look like: one line, naming the program, no stack frame. */
export const ONE_LINE = /^canvasgym: [^\n]+\n$/;
