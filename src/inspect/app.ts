// `canvasgym inspect`'s web app: read-only pages over the runs in a folder, live from their files (a run still being
// written shows what it has), each rollout with its canvas, every rubric's components and the same task's rollouts
// from the run's other stages, and a button that opens it in the real tldraw editor. Routes:
//   /                                        the runs
//   /run/NAME                                its stages, rollout files, evaluations and curves
//   /run/NAME/stage/STAGE?FILTERS            that file's rollouts, filtered and paged (src/inspect/filters.ts)
//   /run/NAME/stage/STAGE/export.jsonl?...   the filtered rows as they are in the file
//   /run/NAME/stage/STAGE/rollout/N          one rollout (N: its line in the file)
//   /run/NAME/stage/STAGE/rollout/N/actions.json   its actions as the tldraw page applies them
//   /compare?a=NAME/STAGE&b=NAME/STAGE       two stages or runs on the same tasks, largest change first
//   /tldraw/?actions=URL                     the editor page (src/diagram/tldraw/page)
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { diagramEnv } from '../diagram/diagram-env.ts';
import { executeCompletion } from '../diagram/language/execute.ts';
import { RUBRIC_NAMES } from '../diagram/reward/presets.ts';
import { prepareDiagram } from '../diagram/tldraw/prepare.ts';
import { pageFiles } from '../diagram/tldraw/server.ts';
import { curvesOf } from '../pipeline/run.ts';
import { readFilters, selectPage } from './filters.ts';
import { comparePage, errorPage, listPage, rolloutHref, rolloutPage, runPage, runsPage, type ActionLine, type CompareRow, type EvalFigures } from './pages.ts';
import { rolloutOf, type Rollout } from './rollout.ts';
import { RowIndex } from './row-index.ts';
import { listRuns, runInfo, sourcesOf, tasksOf, type RunInfo, type Source } from './runs.ts';

export interface InspectorOptions {
  runsDir: string;
  host: string;
  /** 0: a free port. */
  port: number;
}

export interface Inspector {
  url: string;
  close(): Promise<void>;
}

class NotFound extends Error {}
class BadRequest extends Error {}

/** The indexes of the files read so far, each followed as it grows (row-index.ts), and each run's tasks. */
class Store {
  private readonly indexes = new Map<string, { index: RowIndex<Rollout>; tasks: ReturnType<typeof tasksOf> }>();
  private readonly tasks = new Map<string, { at: string; tasks: ReturnType<typeof tasksOf> }>();

  constructor(readonly runsDir: string) {}

  run(name: string): RunInfo {
    const info = runInfo(this.runsDir, name);
    if (!info) throw new NotFound(`no run ${JSON.stringify(name)} in ${this.runsDir}`);
    return info;
  }

  source(info: RunInfo, id: string): Source {
    const source = sourcesOf(info).find((s) => s.id === id);
    if (!source) throw new NotFound(`run ${info.name} has no stage ${JSON.stringify(id)}: it has ${sourcesOf(info).map((s) => s.id).join(', ') || 'none yet'}`);
    return source;
  }

  private tasksOf(info: RunInfo) {
    // The task files are written at the run's start (again after --fresh): read again only when they change.
    const at = ['train', 'heldout', 'ood'].map((split) => fileStamp(join(info.dir, 'tasks', `${split}.jsonl`))).join();
    let hit = this.tasks.get(info.dir);
    if (!hit || hit.at !== at) this.tasks.set(info.dir, (hit = { at, tasks: tasksOf(info) }));
    return hit.tasks;
  }

  /** The file's index, made again when the run's tasks changed (its rows' kinds, levels and specs come from them). */
  index(info: RunInfo, source: Source): RowIndex<Rollout> {
    const tasks = this.tasksOf(info);
    let hit = this.indexes.get(source.path);
    if (!hit || hit.tasks !== tasks) {
      hit = { index: new RowIndex(source.path, (row, n) => rolloutOf(source.kind, row, n, tasks), 'a row without a prompt and a completion'), tasks };
      this.indexes.set(source.path, hit);
    }
    return hit.index;
  }

  rollouts(info: RunInfo, source: Source): { rollouts: Rollout[]; unreadable: number } {
    const all = this.index(info, source).all();
    const rollouts = all.flatMap((e) => ('value' in e ? [e.value] : []));
    return { rollouts, unreadable: all.length - rollouts.length };
  }

  /** The rows of `rollouts` as the file holds them. */
  raw(info: RunInfo, source: Source, rollouts: readonly Rollout[]): Buffer[] {
    const index = this.index(info, source);
    const byN = new Map(index.all().map((e) => [e.n, e]));
    return index.bytesOf(rollouts.map((r) => byN.get(r.n)!));
  }

  rollout(info: RunInfo, source: Source, n: number): Rollout {
    const entry = this.index(info, source).all().find((e) => e.n === n);
    if (!entry) throw new NotFound(`${source.id} has no rollout ${n}`);
    if (!('value' in entry)) throw new NotFound(`${source.id} line ${n} is ${entry.unreadable}`);
    return entry.value;
  }
}

function evalFigures(info: RunInfo, sources: Source[]): EvalFigures[] {
  return sources
    .filter((s) => s.kind === 'eval')
    .flatMap((s) => {
      const path = join(s.path, '..', 'metrics.json');
      if (!existsSync(path)) return [];
      try {
        const m = JSON.parse(readFileSync(path, 'utf8')) as { reward?: Record<string, { mean: number }>; renderer_accept_rate?: { mean: number }; components?: Record<string, { mean: number }> };
        const figures: Record<string, number | undefined> = { valid: m.renderer_accept_rate?.mean };
        for (const [k, v] of Object.entries(m.reward ?? {})) figures[k] = v.mean;
        figures.entities_present = m.components?.entities_present?.mean;
        figures.edges_correct = m.components?.edges_correct?.mean;
        return [{ label: s.id.slice('eval-'.length), figures }];
      } catch {
        return [];
      }
    });
}

function drawSvg(completion: string): { svg: string } | { error: string } {
  const d = diagramEnv.draw!(completion, { errors: true });
  return 'svg' in d ? { svg: d.svg } : d;
}

function detail(store: Store, info: RunInfo, source: Source, r: Rollout) {
  const run = executeCompletion(r.completion);
  const failed = new Map(run.outcomes.filter((o) => !o.applied && o.error).map((o) => [o.index, o.error!.reason]));
  const actions: ActionLine[] | null = run.parse.ok ? run.parse.actions.map((a, i) => ({ json: JSON.stringify(a), error: failed.get(i) })) : null;
  const pretty = run.parse.ok ? JSON.stringify({ actions: run.parse.actions }, null, 2) : r.completion;
  const task = { id: r.taskId ?? '', prompt: r.prompt, spec: r.spec };
  const scores = RUBRIC_NAMES.map((rubric) => {
    const s = diagramEnv.reward(rubric).score(task, r.completion);
    return { rubric, reward: s.reward, components: s.components };
  });
  const others = r.taskId
    ? sourcesOf(info)
        .filter((s) => s.id !== source.id)
        .flatMap((s) => {
          const hit = store.rollouts(info, s).rollouts.find((o) => o.taskId === r.taskId);
          if (!hit) return [];
          const d = drawSvg(hit.completion);
          return [{ source: s, rollout: hit, svg: 'svg' in d ? d.svg : null }];
        })
    : [];
  const tldrawHref = run.parse.ok ? `/tldraw/?actions=${encodeURIComponent(`${rolloutHref(info.name, source.id, r.n)}/actions.json`)}` : null;
  return { drawing: drawSvg(r.completion), scores, actions, pretty, tldrawHref, others };
}

function compare(store: Store, aRef: string | null, bRef: string | null) {
  const side = (ref: string | null, name: string) => {
    const slash = ref?.indexOf('/') ?? -1;
    if (!ref || slash < 0) throw new BadRequest(`${name} must be RUN/STAGE, e.g. ${name}=default/eval-SFT`);
    const info = store.run(ref.slice(0, slash));
    const source = store.source(info, ref.slice(slash + 1));
    const byTask = new Map<string, Rollout[]>();
    for (const r of store.rollouts(info, source).rollouts) {
      const key = r.taskId ?? r.prompt;
      const rs = byTask.get(key);
      if (rs) rs.push(r);
      else byTask.set(key, [r]);
    }
    return { run: info.name, source, byTask };
  };
  const a = side(aRef, 'a');
  const b = side(bRef, 'b');
  const summary = (rs: Rollout[] | undefined) => (rs ? { n: rs[0].n, reward: rs.reduce((s, r) => s + (r.reward ?? 0), 0) / rs.length } : null);
  const rows: CompareRow[] = [...new Set([...a.byTask.keys(), ...b.byTask.keys()])].map((task) => ({
    task,
    prompt: (a.byTask.get(task) ?? b.byTask.get(task))![0].prompt,
    a: summary(a.byTask.get(task)),
    b: summary(b.byTask.get(task)),
  }));
  const change = (r: CompareRow) => (r.a && r.b ? Math.abs(r.b.reward - r.a.reward) : -1);
  rows.sort((x, y) => change(y) - change(x) || x.task.localeCompare(y.task));
  return comparePage(a, b, rows);
}

const HTML = { 'content-type': 'text/html; charset=utf-8' };
/** A file's size and modification time, or "-" while it does not exist. */
const fileStamp = (path: string) => (existsSync(path) ? `${statSync(path).size}:${statSync(path).mtimeMs}` : '-');
const NEWLINE = Buffer.from('\n');

function route(store: Store, tldraw: ((req: IncomingMessage, res: ServerResponse) => void) | Error, req: IncomingMessage, res: ServerResponse): void {
  let url: URL;
  let parts: string[];
  try {
    url = new URL(req.url ?? '/', 'http://inspector');
    parts = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
  } catch {
    throw new BadRequest(`the address ${JSON.stringify(req.url)} is not a valid path`);
  }
  const html = (body: string) => res.writeHead(200, HTML).end(body);
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { ...HTML, allow: 'GET, HEAD' }).end(errorPage(405, 'the inspector is read-only: GET only'));
    return;
  }
  if (parts[0] === 'tldraw') {
    if (tldraw instanceof Error) throw new NotFound(tldraw.message);
    tldraw(req, res);
    return;
  }
  if (parts.length === 0) {
    html(runsPage(store.runsDir, listRuns(store.runsDir).map((info) => ({ info, sources: sourcesOf(info).length }))));
    return;
  }
  if (parts[0] === 'compare' && parts.length === 1) {
    html(compare(store, url.searchParams.get('a'), url.searchParams.get('b')));
    return;
  }
  if (parts[0] !== 'run' || parts.length < 2) throw new NotFound(`no page at ${url.pathname}`);
  const info = store.run(parts[1]);
  if (parts.length === 2) {
    const sources = sourcesOf(info);
    let curves;
    try {
      curves = curvesOf({ sft: join(info.dir, 'sft'), grpo: join(info.dir, 'grpo') });
    } catch (err) {
      curves = `the logs do not read yet (${(err as Error).message})`;
    }
    html(runPage(info, sources.map((source) => ({ source, rows: store.rollouts(info, source).rollouts.length })), evalFigures(info, sources), curves));
    return;
  }
  if (parts[2] !== 'stage' || parts.length < 4) throw new NotFound(`no page at ${url.pathname}`);
  const source = store.source(info, parts[3]);
  if (parts.length === 4 || (parts.length === 5 && parts[4] === 'export.jsonl')) {
    const read = readFilters(url.searchParams);
    if (!read.ok) throw new BadRequest(read.error);
    const { rollouts, unreadable } = store.rollouts(info, source);
    if (parts.length === 5) {
      const { page: hits } = selectPage(rollouts, { ...read.filters, page: 1, per: Number.MAX_SAFE_INTEGER });
      // The rows as the file holds them, not as the inspector reads them: an export feeds other tools.
      const rows = store.raw(info, source, hits);
      res.writeHead(200, { 'content-type': 'application/x-ndjson; charset=utf-8', 'content-disposition': `attachment; filename="${info.name}-${source.id}.jsonl"` });
      res.end(Buffer.concat(rows.flatMap((b) => [b, NEWLINE])));
      return;
    }
    const { total, page: rows } = selectPage(rollouts, read.filters);
    const facets = {
      kinds: [...new Set(rollouts.flatMap((r) => (r.spec?.kind ? [r.spec.kind as string] : [])))].sort(),
      quirks: [...new Set(rollouts.flatMap((r) => r.quirks))].sort(),
      steps: [...new Set(rollouts.map((r) => r.step).filter((s): s is number => s !== undefined))].sort((x, y) => x - y),
    };
    html(listPage(info, source, read.filters, url.searchParams, { total, page: rows, unreadable }, facets));
    return;
  }
  if (parts[4] === 'rollout' && (parts.length === 6 || (parts.length === 7 && parts[6] === 'actions.json'))) {
    const n = Number(parts[5]);
    if (!Number.isInteger(n) || n < 1) throw new NotFound(`rollout ids are line numbers from 1, got ${JSON.stringify(parts[5])}`);
    const r = store.rollout(info, source, n);
    if (parts.length === 7) {
      const run = executeCompletion(r.completion);
      const actions = run.parse.ok ? prepareDiagram(run.parse.actions).page : { actions: [] };
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(actions));
      return;
    }
    html(rolloutPage(info, source, r, detail(store, info, source, r)));
    return;
  }
  throw new NotFound(`no page at ${url.pathname}`);
}

export async function startInspector(o: InspectorOptions): Promise<Inspector> {
  const store = new Store(o.runsDir);
  let tldraw: ((req: IncomingMessage, res: ServerResponse) => void) | Error;
  try {
    tldraw = pageFiles(undefined, '/tldraw/');
  } catch (err) {
    tldraw = err as Error;
  }
  const server: Server = createServer((req, res) => {
    try {
      route(store, tldraw, req, res);
    } catch (err) {
      const status = err instanceof NotFound ? 404 : err instanceof BadRequest ? 400 : 500;
      const message = status === 500 ? `the inspector failed on this page: ${(err as Error).message}` : (err as Error).message;
      if (!res.headersSent) res.writeHead(status, HTML);
      res.end(errorPage(status, message));
    }
  });
  await new Promise<void>((ok, fail) => server.once('error', fail).listen(o.port, o.host, ok));
  const { port } = server.address() as AddressInfo;
  const host = o.host;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}/`,
    close: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}
