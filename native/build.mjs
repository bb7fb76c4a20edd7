// Builds the native backend (native/binding.gyp) with node-gyp: an optional step of `npm install`. It needs a C++
// compiler, make and Node's headers, nothing else (OpenBLAS is looked up at run time). Any failure (no compiler, no
// Node headers, another OS) is logged in one line and the install goes on: the
// WebAssembly kernels are the portable fallback, and the engine says which backend it runs and why.
//   node native/build.mjs            build (skipped with CANVASGYM_SKIP_NATIVE=1)
//   node native/build.mjs --strict   the same, but a failed build exits 1 (CI, after installing the apt packages)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const strict = process.argv.includes('--strict');
const logFile = join(here, 'build', 'build.log');

function done(ok, why) {
  if (ok) {
    console.log(`canvasgym: native backend built (${join('native', 'build', 'Release', 'canvasgym_native.node')})`);
    process.exit(0);
  }
  console.warn(`canvasgym: native backend not built (${why}); the model will use the WebAssembly kernels`);
  process.exit(strict ? 1 : 0);
}

if (process.env.CANVASGYM_SKIP_NATIVE === '1') done(false, 'CANVASGYM_SKIP_NATIVE=1');

// npm gives scripts the path of its own node-gyp; outside npm, look for the copy bundled with npm next to node.
const candidates = [
  process.env.npm_config_node_gyp,
  join(dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js'),
  join(dirname(process.execPath), 'node_modules', 'npm', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js'),
].filter(Boolean);
const gyp = candidates.find((p) => existsSync(p));
if (!gyp) done(false, 'node-gyp not found (it comes with npm)');

// Node's headers from the installed prefix, so that node-gyp does not try to download them.
const prefix = dirname(dirname(process.execPath));
const args = [gyp, 'rebuild', '--directory', here, '--jobs', '2'];
if (existsSync(join(prefix, 'include', 'node', 'node_api.h'))) args.push(`--nodedir=${prefix}`);

const res = spawnSync(process.execPath, args, { encoding: 'utf8', timeout: 600_000 });
mkdirSync(dirname(logFile), { recursive: true });
writeFileSync(logFile, `${res.stdout ?? ''}\n${res.stderr ?? ''}`);
if (res.status === 0 && existsSync(join(here, 'build', 'Release', 'canvasgym_native.node'))) done(true);
const lines = `${res.stderr ?? ''}${res.error ? res.error.message : ''}`.split('\n').map((l) => l.trim());
const first = lines.find((l) => /error|not found|No such file/i.test(l) && !l.startsWith('gyp ERR! stack')) ?? lines.find((l) => l) ?? 'unknown error';
done(false, `${first.slice(0, 200)}; full log in native/build/build.log`);
