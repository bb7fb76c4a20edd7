// The code a worker thread starts with (`new Worker(code, { eval: true })`) to load its module. The installed package
// runs compiled JavaScript (dist/), where the module is a .js file beside its caller. A checkout runs the TypeScript
// sources through tsx, which worker threads do not inherit (and Node 20 ignores `--import` in a worker's execArgv):
// there the thread registers tsx itself, from this package's copy, then loads the .ts module.

/** Bootstrap code loading `name` (a module beside the caller, without its extension) in the caller's own form. */
export function workerEntry(name: string, callerUrl: string): string {
  if (!callerUrl.endsWith('.ts')) return `import(${JSON.stringify(new URL(`./${name}.js`, callerUrl).href)});`;
  const tsx = JSON.stringify(import.meta.resolve('tsx/esm/api'));
  const entry = JSON.stringify(new URL(`./${name}.ts`, callerUrl).href);
  return `import(${tsx}).then((tsx) => { tsx.register(); return import(${entry}); });`;
}
