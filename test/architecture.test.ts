// The folders of src/ are the project's parts: each imports only parts below it. This reads every import in src/ and
// holds the layering to what the docs promise: no folders (a sub-folder counts as a folder of its own) import each
// other, directly or round a longer cycle, the trainers and the evaluation know no environment, and the generic folders none either.
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

/** The cycles of a directed graph: its strongly connected components of more than one node (Tarjan's algorithm),
 *  each sorted; a node importing itself is not a cycle here, since a folder may import its own files. */
function cycles(edges: Iterable<string>): string[][] {
  const next = new Map<string, string[]>();
  for (const e of edges) {
    const [a, b] = e.split(' -> ');
    next.set(a, [...(next.get(a) ?? []), b]);
    if (!next.has(b)) next.set(b, []);
  }
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v)!) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1) found.push(component.sort());
  };
  for (const v of next.keys()) if (!index.has(v)) visit(v);
  return found;
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
    expect(cycles(edges)).toEqual([]);
  });

  it('are checked for cycles of any length, not only pairs', () => {
    expect(cycles(['a -> b', 'b -> c', 'c -> a', 'c -> d', 'd -> d'])).toEqual([['a', 'b', 'c']]);
    expect(cycles(['a -> b', 'b -> a', 'c -> d', 'd -> e', 'e -> c', 'e -> f'])).toEqual([['a', 'b'], ['c', 'd', 'e']]);
    expect(cycles(['a -> b', 'b -> c', 'a -> c'])).toEqual([]);
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
