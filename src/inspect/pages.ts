// The inspector's pages, rendered on the server as plain HTML (the report's styles, inline SVG, no script but the
// tldraw page's): every view is a URL, so a filtered list or one rollout is a link a person can share.
import { escapeXml as esc } from '../io/xml.ts';
import { lineChart, REPORT_CSS } from '../eval/report.ts';
import type { Curve } from '../eval/report.ts';
import { ERROR_KINDS } from '../diagram/language/error-kinds.ts';
import type { Filters } from './filters.ts';
import type { Rollout } from './rollout.ts';
import type { RunInfo, Source } from './runs.ts';

const CSS = `${REPORT_CSS}
nav{font-size:13px;margin-bottom:8px}nav a{color:#2563eb}a{color:#2563eb}
table.list{border-collapse:collapse;background:#fff;width:100%}table.list td,table.list th{padding:4px 8px;border:1px solid #e1e5ea;text-align:left;vertical-align:top}
table.list td.text{max-width:420px;overflow:hidden;text-overflow:ellipsis;white-space:nowrap;font-size:12px}
form.filters{display:flex;flex-wrap:wrap;gap:8px;align-items:end;background:#fff;border:1px solid #e1e5ea;padding:8px;margin:8px 0}
form.filters label{display:flex;flex-direction:column;font-size:12px}form.filters input,form.filters select{font:inherit;width:110px}
.tag{display:inline-block;font-size:11px;padding:0 6px;border-radius:8px;background:#fde8e8;color:#b42318;margin-right:4px}
.tag.ok{background:#e6f4ea;color:#1e7b34}.cols{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:16px}
ol.actions{font:12px ui-monospace,monospace;padding-left:28px}ol.actions li{margin:2px 0;word-break:break-all}ol.actions li.failed{background:#fff5f5}
ol.actions .why{color:#b42318;display:block}.pager{margin:8px 0}.pager a,.pager span{margin-right:12px}
pre.raw{max-height:360px}pre.prompt-text{word-break:normal;font-size:12px}`;

function page(title: string, crumbs: [string, string?][], body: string): string {
  const nav = crumbs.map(([text, href]) => (href ? `<a href="${esc(href)}">${esc(text)}</a>` : esc(text))).join(' / ');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${esc(title)}</title><link rel="icon" href="data:,"><style>${CSS}</style></head>
<body><main><nav>${nav}</nav><h1>${esc(title)}</h1>
${body}
</main></body></html>`;
}

const runHref = (run: string) => `/run/${encodeURIComponent(run)}`;
const stageHref = (run: string, stage: string) => `${runHref(run)}/stage/${encodeURIComponent(stage)}`;
export const rolloutHref = (run: string, stage: string, n: number) => `${stageHref(run, stage)}/rollout/${n}`;
const fmt = (v: number | null | undefined, digits = 3) => (v === null || v === undefined ? '' : v.toFixed(digits));
const HOME: [string, string] = ['runs', '/'];

const TITLES: Record<number, string> = { 400: 'Bad request', 404: 'Not found', 405: 'Read-only', 500: 'The inspector failed' };

export function errorPage(status: number, message: string): string {
  return page(TITLES[status] ?? `Error ${status}`, [HOME], `<p class="errors">${esc(message)}</p>`);
}

export function runsPage(runsDir: string, runs: { info: RunInfo; sources: number }[]): string {
  if (runs.length === 0) return page('Runs', [['runs']], `<p class="muted">No runs in ${esc(runsDir)} yet: <code>canvasgym run</code> makes one.</p>`);
  const rows = runs.map(({ info, sources }) => {
    const stages = Object.keys(info.state?.stages ?? {});
    const lead = info.state?.stages?.['eval-grpo']?.summary ?? info.state?.stages?.['eval-sft']?.summary ?? '';
    return `<tr><td><a href="${runHref(info.name)}">${esc(info.name)}</a></td><td>${esc(info.state?.config?.preset ?? '')}</td><td>${esc(info.modified.toISOString().replace('T', ' ').slice(0, 19))}</td><td>${stages.length} (${esc(stages.at(-1) ?? 'none')} last)</td><td>${sources}</td><td>${esc(lead)}</td></tr>`;
  });
  return page('Runs', [['runs']], `<p class="muted">${esc(runsDir)}</p><div class="scroll"><table class="metrics"><tr><th>run</th><th>preset</th><th>updated</th><th>stages done</th><th>rollout files</th><th>GRPO (or SFT) on IID tasks</th></tr>${rows.join('')}</table></div>`);
}

export interface EvalFigures {
  label: string;
  figures: Record<string, number | undefined>;
}

export function runPage(info: RunInfo, sources: { source: Source; rows: number }[], evals: EvalFigures[], curves: Curve[] | string): string {
  const stages = Object.entries(info.state?.stages ?? {})
    .map(([name, s]) => `<tr><td>${esc(name)}</td><td class="num">${fmt(s.seconds, 1)}</td><td>${esc(s.summary ?? '')}</td></tr>`)
    .join('');
  const files = sources.map(({ source, rows }) => `<tr><td><a href="${stageHref(info.name, source.id)}">${esc(source.label)}</a></td><td class="num">${rows}</td></tr>`).join('');
  const names = [...new Set(evals.flatMap((e) => Object.keys(e.figures)))];
  const table = evals.length
    ? `<div class="scroll"><table class="metrics"><tr><th>policy</th>${names.map((n) => `<th>${esc(n)}</th>`).join('')}</tr>${evals
        .map((e) => `<tr><td>${esc(e.label)}</td>${names.map((n) => `<td>${fmt(e.figures[n])}</td>`).join('')}</tr>`)
        .join('')}</table></div>`
    : '<p class="muted">No evaluation yet.</p>';
  const charts = typeof curves === 'string' ? `<p class="muted">${esc(curves)}</p>` : `<div class="charts">${curves.map((c) => lineChart(c)).join('')}</div>`;
  const compare = sources.length >= 2 ? compareForm(info.name, sources.map((s) => s.source)) : '';
  return page(`Run ${info.name}`, [HOME, [info.name]], `<p class="muted">${esc(info.dir)}; preset ${esc(info.state?.config?.preset ?? '?')}</p>
<h2>Stages</h2><table class="metrics"><tr><th>stage</th><th>seconds</th><th>summary</th></tr>${stages}</table>
<h2>Rollouts</h2><table class="metrics"><tr><th>stage</th><th>rows</th></tr>${files}</table>${compare}
<h2>Evaluations</h2>${table}
<h2>Curves</h2>${charts}`);
}

function compareForm(run: string, sources: Source[]): string {
  const options = (selected: number) => sources.map((s, i) => `<option value="${esc(`${run}/${s.id}`)}"${i === selected ? ' selected' : ''}>${esc(s.label)}</option>`).join('');
  return `<form class="filters" action="/compare" method="get"><label>compare<select name="a">${options(0)}</select></label><label>with<select name="b">${options(1)}</select></label><button>compare</button></form>`;
}

export interface ListFacets {
  kinds: string[];
  quirks: string[];
  steps: number[];
}

function filterForm(f: Filters, facets: ListFacets): string {
  const input = (name: keyof Filters, label: string) => `<label>${label}<input name="${name}" value="${esc(f[name] === undefined ? '' : String(f[name]))}"></label>`;
  const select = (name: keyof Filters, label: string, values: readonly (string | number)[]) =>
    `<label>${label}<select name="${name}"><option value="">any</option>${values.map((v) => `<option${String(f[name]) === String(v) ? ' selected' : ''}>${esc(String(v))}</option>`).join('')}</select></label>`;
  return `<form class="filters" method="get">${facets.steps.length ? select('step', 'step', facets.steps) : ''}${select('kind', 'task kind', facets.kinds)}${input('difficulty', 'difficulty')}${input('min', 'reward &ge;')}${input('max', 'reward &le;')}${select('error', 'error', ERROR_KINDS)}${facets.quirks.length ? select('quirk', 'quirk', facets.quirks) : ''}${input('below', 'component below (edges:0.5)')}${input('q', 'text')}${select('sort', 'order', ['line', 'reward', '-reward'])}<button>filter</button></form>`;
}

const tags = (r: Rollout) => (r.errors.length || r.errorKinds.length ? r.errorKinds.map((k) => `<span class="tag">${esc(k)}</span>`).join('') : '<span class="tag ok">valid</span>');

export function listPage(info: RunInfo, source: Source, f: Filters, query: URLSearchParams, result: { total: number; page: Rollout[]; unreadable: number }, facets: ListFacets): string {
  const rows = result.page
    .map(
      (r) =>
        `<tr data-n="${r.n}"><td><a href="${rolloutHref(info.name, source.id, r.n)}">#${r.n}</a></td><td>${r.step ?? ''}</td><td>${esc(r.spec?.kind ?? '')}${r.spec?.difficulty === undefined ? '' : ` @${esc(String(r.spec.difficulty))}`}</td><td class="num">${fmt(r.reward)}</td><td>${tags(r)}</td><td class="text">${esc(r.prompt)}</td><td class="text">${esc(r.completion)}</td></tr>`,
    )
    .join('');
  const pages = Math.max(1, Math.ceil(result.total / f.per));
  const at = (p: number) => {
    const q = new URLSearchParams(query);
    q.set('page', String(p));
    return `?${q}`;
  };
  const exportQuery = new URLSearchParams(query);
  exportQuery.delete('page');
  exportQuery.delete('per');
  const pager = `<div class="pager">${f.page > 1 ? `<a href="${esc(at(f.page - 1))}">previous</a>` : ''}<span>page ${f.page} of ${pages}</span>${f.page < pages ? `<a href="${esc(at(f.page + 1))}">next</a>` : ''}<a href="${esc(`${stageHref(info.name, source.id)}/export.jsonl?${exportQuery}`)}">export these ${result.total} as JSONL</a></div>`;
  const unreadable = result.unreadable ? `<p class="errors">${result.unreadable} line(s) of the file do not read as rollouts and are left out.</p>` : '';
  return page(source.label, [HOME, [info.name, runHref(info.name)], [source.id]], `${filterForm(f, facets)}<p><span class="total">${result.total}</span> rollouts match.</p>${unreadable}${pager}
<div class="scroll"><table class="list"><tr><th>rollout</th><th>step</th><th>task</th><th>reward</th><th>errors</th><th>prompt</th><th>completion</th></tr>${rows}</table></div>${pager}`);
}

export interface ActionLine {
  json: string;
  error?: string;
}

export interface RolloutDetail {
  drawing: { svg: string } | { error: string };
  /** Every rubric's score of the completion, as the environment computes it now. */
  scores: { rubric: string; reward: number; components: Record<string, number> }[];
  actions: ActionLine[] | null;
  pretty: string;
  tldrawHref: string | null;
  others: { source: Source; rollout: Rollout; svg: string | null }[];
}

function componentsTable(scores: RolloutDetail['scores'], r: Rollout): string {
  const stored = r.componentsStored ? r.components : {};
  const now = scores
    .map((s) => `<tr><th>${esc(s.rubric)}</th><td class="num"><b>${fmt(s.reward)}</b></td>${Object.entries(s.components).map(([k, v]) => `<td>${esc(k)} ${fmt(v)}</td>`).join('')}</tr>`)
    .join('');
  const kept = Object.entries(stored)
    .map(([name, c]) => `<tr><th>${esc(name)} (stored)</th><td></td>${Object.entries(c).map(([k, v]) => `<td>${esc(k)} ${fmt(v)}</td>`).join('')}</tr>`)
    .join('');
  return `<div class="scroll"><table class="metrics components">${now}${kept}</table></div>`;
}

function judgmentBlock(r: Rollout): string {
  const j = r.judgment;
  if (!j) return '';
  const verdict = j.score === null ? `no judgment${j.error ? `: ${esc(j.error)}` : ''}` : `score <b>${fmt(j.score)}</b>`;
  return `<h2>Judge</h2><div class="judgment"><p>${esc(j.judge)}: ${verdict}</p>${j.reasoning ? `<blockquote class="reasoning">${esc(j.reasoning)}</blockquote>` : ''}</div>`;
}

export function rolloutPage(info: RunInfo, source: Source, r: Rollout, d: RolloutDetail): string {
  const picture = 'svg' in d.drawing ? `<figure class="card canvas">${d.drawing.svg}</figure>` : `<div class="nodiagram">${esc(d.drawing.error)}</div>`;
  const actions = d.actions
    ? `<ol class="actions" start="0">${d.actions.map((a) => `<li${a.error ? ' class="failed"' : ''}>${esc(a.json)}${a.error ? `<span class="why">${esc(a.error)}</span>` : ''}</li>`).join('')}</ol>`
    : '<p class="muted">The completion does not parse into actions.</p>';
  const facts = [
    r.step !== undefined ? `step ${r.step}` : '',
    r.taskId ? `task ${r.taskId}` : '',
    r.sample !== undefined ? `sample ${r.sample}` : '',
    r.spec ? `${r.spec.kind ?? ''} @${r.spec.difficulty ?? '?'}` : '',
    r.finishReason ? `finish: ${r.finishReason}` : '',
    r.advantage !== undefined ? `advantage ${fmt(r.advantage)}` : '',
    r.quirks.length ? `quirks: ${r.quirks.join(', ')}` : '',
  ].filter(Boolean);
  const others = d.others.length
    ? `<h2>The same task elsewhere in the run</h2><div class="row" style="--cols:${Math.min(4, d.others.length)}">${d.others
        .map(
          (o) =>
            `<figure class="card"><figcaption><a href="${rolloutHref(info.name, o.source.id, o.rollout.n)}">${esc(o.source.label)} #${o.rollout.n}</a> reward ${fmt(o.rollout.reward)}</figcaption>${o.svg ?? '<div class="nodiagram">no diagram</div>'}${tags(o.rollout)}</figure>`,
        )
        .join('')}</div>`
    : '';
  const tldraw = d.tldrawHref ? `<p><a class="open-tldraw" href="${esc(d.tldrawHref)}" target="_blank" rel="noopener">open in tldraw</a> <span class="muted">(the real editor; nothing is written back to the run)</span></p>` : '';
  return page(`${source.label} #${r.n}`, [HOME, [info.name, runHref(info.name)], [source.id, stageHref(info.name, source.id)], [`#${r.n}`]], `<p class="muted">${esc(facts.join(' · '))}</p>
<div class="cols"><div><h2>Prompt</h2><pre class="prompt-text">${esc(r.prompt)}</pre>
<h2>Errors</h2>${r.errors.length ? `<ul class="errors">${r.errors.map((e) => `<li>${esc(e)}</li>`).join('')}</ul>` : '<p class="tag ok">none</p>'}
<h2>Reward</h2><p>stored: <b class="stored-reward">${fmt(r.reward)}</b></p>${componentsTable(d.scores, r)}${judgmentBlock(r)}</div>
<div><h2>Canvas</h2>${picture}${tldraw}</div></div>
<h2>Actions</h2>${actions}
<h2>Completion</h2><div class="cols"><div><h3>raw</h3><pre class="raw">${esc(r.completion)}</pre></div><div><h3>pretty</h3><pre class="raw">${esc(d.pretty)}</pre></div></div>
${others}`);
}

export interface CompareRow {
  task: string;
  prompt: string;
  a: { n: number; reward: number } | null;
  b: { n: number; reward: number } | null;
}

export function comparePage(a: { run: string; source: Source }, b: { run: string; source: Source }, rows: CompareRow[]): string {
  const both = rows.filter((r) => r.a && r.b);
  const mean = (xs: number[]) => (xs.length ? xs.reduce((s, x) => s + x, 0) / xs.length : NaN);
  const link = (side: { run: string; source: Source }, x: CompareRow['a']) => (x ? `<a href="${rolloutHref(side.run, side.source.id, x.n)}">${fmt(x.reward)}</a>` : '');
  const body = rows
    .map((r) => `<tr><td>${esc(r.task)}</td><td class="num">${link(a, r.a)}</td><td class="num">${link(b, r.b)}</td><td class="num diff">${r.a && r.b ? fmt(r.b.reward - r.a.reward) : ''}</td><td class="text">${esc(r.prompt)}</td></tr>`)
    .join('');
  const name = (s: { run: string; source: Source }) => `${s.run}: ${s.source.label}`;
  return page('Compare', [HOME, [a.run, runHref(a.run)], ['compare']], `<p>A: <b>${esc(name(a))}</b><br>B: <b>${esc(name(b))}</b></p>
<p>${both.length} tasks in both; mean reward A ${fmt(mean(both.map((r) => r.a!.reward)))}, B ${fmt(mean(both.map((r) => r.b!.reward)))}. Largest changes first; a task's reward is the mean of its rollouts, the link its first.</p>
<div class="scroll"><table class="list compare"><tr><th>task</th><th>A</th><th>B</th><th>B - A</th><th>prompt</th></tr>${body}</table></div>`);
}
