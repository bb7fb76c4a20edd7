// The folders of src/ are the project's parts: each imports only parts below it. This reads every import in src/ and
// holds the layering to what the docs promise: no two folders (a sub-folder counts as a folder of its own) import
// each other, the trainers and the evaluation know no environment, and the generic folders none either.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = join(import.meta.dirname, '..', 'src');
const IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)['"](\.{1,2}\/[^'"]+)['"]/g;
/** The environments: what only the CLI, the server, the pipeline and the environments themselves may import. */
const ENVIRONMENTS = ['diagram', 'editing', 'arithmetic'];
/** Folders that stay generic: the trainers, the evaluation and what they are built on. */
const GENERIC = ['train', 'eval', 'environment', 'policy', 'model', 'io', 'render'];

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : /\.(ts|tsx|mts)$/.test(e.name) ? [join(dir, e.name)] : [],
  );
}

/** Every import between files of src/, as paths relative to src/ ('.' is src/ itself). */
function fileImports(): { from: string; to: string }[] {
  return sources(SRC).flatMap((file) =>
    [...readFileSync(file, 'utf8').matchAll(IMPORT)].map((m) => ({
      from: relative(SRC, file),
      to: relative(SRC, normalize(join(dirname(file), m[1]))),
    })),
  );
}

const folder = (path: string) => dirname(path);
const within = (path: string, top: string) => path === top || path.startsWith(`${top}/`);

describe('the folders of src/', () => {
  const imports = fileImports();
  // index.ts is the package's entry: it re-exports every part, and nothing inside imports it.
  const edges = new Set(imports.filter((i) => i.from !== 'index.ts' && folder(i.from) !== folder(i.to)).map((i) => `${folder(i.from)} -> ${folder(i.to)}`));

  it('are read: the imports are found', () => {
    expect(edges).toContain('train -> environment');
    expect(edges).toContain('diagram/reward -> diagram/language');
    expect(imports.filter((i) => i.from === 'index.ts').length).toBeGreaterThan(20);
  });

  it('import each other in one direction only', () => {
    const mutual = [...edges].filter((e) => {
      const [a, b] = e.split(' -> ');
      return a < b && edges.has(`${b} -> ${a}`);
    });
    expect(mutual).toEqual([]);
  });

  it('leave the package entry alone, and src/ itself holds only leaves beside it', () => {
    expect(imports.filter((i) => i.to === 'index.ts')).toEqual([]);
    expect(imports.filter((i) => folder(i.from) === '.' && i.from !== 'index.ts')).toEqual([]);
  });

  it('keep the trainers, the evaluation and the generic parts free of any environment', () => {
    const leaks = imports.filter((i) => GENERIC.some((g) => within(i.from, g)) && ENVIRONMENTS.some((e) => within(i.to, e)));
    expect(leaks).toEqual([]);
  });
});
