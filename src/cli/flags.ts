// Output paths, checked before a command starts work that a bad path would waste: a refusal is a UsageError naming
// the flag. (Flag values are checked by their settings schema, src/cli/settings-flags.ts.)
import { accessSync, constants, statSync, type Stats } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { UsageError } from './usage-error.ts';

/** What is at `path`, or undefined when nothing is (a missing folder on the way counts as nothing). */
function statOf(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw err;
  }
}

function writable(flag: string, path: string, what: string): void {
  try {
    accessSync(path, constants.W_OK | constants.X_OK);
  } catch (err) {
    throw new UsageError(`${flag}: cannot write ${what}: ${path} is not writable (${(err as NodeJS.ErrnoException).code})`);
  }
}

/** An output file ("-" is stdout): its folder must exist and be writable, and the path must not be a folder. */
export function outputFileFlag(flag: string, path: string): string {
  if (path === '-') return path;
  if (path.trim() === '') throw new UsageError(`${flag} needs a file name, got ""`);
  const at = statOf(path);
  if (at?.isDirectory()) throw new UsageError(`${flag}: ${path} is a directory, not a file`);
  const folder = dirname(resolve(path));
  const parent = statOf(folder);
  if (!parent) throw new UsageError(`${flag}: cannot write ${path}: the directory ${folder} does not exist`);
  if (!parent.isDirectory()) throw new UsageError(`${flag}: cannot write ${path}: ${folder} is not a directory`);
  writable(flag, folder, path);
  return path;
}

/** An output folder, created later by the command: it must be a writable folder, or the nearest path above it that
 *  exists must be one (nothing is created here, so that a refused command leaves nothing behind). */
export function outputDirFlag(flag: string, path: string): string {
  if (path.trim() === '') throw new UsageError(`${flag} needs a directory, got ""`);
  let at = resolve(path);
  let st = statOf(at);
  if (st && !st.isDirectory()) throw new UsageError(`${flag}: ${path} exists and is not a directory`);
  while (!st) {
    at = dirname(at);
    st = statOf(at);
  }
  if (!st.isDirectory()) throw new UsageError(`${flag}: cannot create ${path}: ${at} is not a directory`);
  writable(flag, at, path);
  return path;
}
