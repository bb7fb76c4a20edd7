#!/usr/bin/env node
// Runs the compiled CLI (dist/, built by `npm run build`, shipped in the package). A checkout runs its TypeScript
// sources through tsx (a devDependency) instead while dist/ is missing or older than any source file: a build is not
// redone on every edit, and a command or a test that spawns this file must run the code as it is now. The build writes
// dist/.tsbuildinfo last, so a build still writing dist/ counts as not done.
import { readdirSync, statSync } from 'node:fs';

const sources = new URL('../src/', import.meta.url);
const stamp = new URL('../dist/.tsbuildinfo', import.meta.url);

function compiledIsCurrent() {
  let files;
  try {
    files = readdirSync(sources, { recursive: true, withFileTypes: true });
  } catch {
    return true; // no src/: an installed package
  }
  let built;
  try {
    built = statSync(stamp).mtimeMs;
  } catch {
    return false;
  }
  return files.every((f) => !f.isFile() || statSync(`${f.parentPath}/${f.name}`).mtimeMs < built);
}

let main;
if (compiledIsCurrent()) {
  ({ main } = await import('../dist/cli/main.js'));
} else {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import('../src/cli/main.ts'));
}
await main(process.argv);
