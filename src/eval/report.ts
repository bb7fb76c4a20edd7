// The HTML report: one self-contained file (inline CSS and SVG, no network) that a person reads to judge a run:
// metrics with intervals, reward distributions, training curves, a side-by-side gallery and the worst rollouts.
// Charts are drawn as plain SVG here: a chart library would need a DOM or a bundler to produce a static file,
// and these are a few dozen lines each.
import type { TextEnv } from '../environment/text-env.ts';
import { escapeXml } from '../io/xml.ts';
import { FONT_FAMILY, textWidth } from '../render/text.ts';
import type { EvalMetrics, GroupMetrics, Rollout } from './evaluate.ts';
import { histogram, type Interval } from './stats.ts';

export interface PolicyEval {
  /** e.g. "teacher", "SFT", "GRPO". */
  label: string;
  metrics: EvalMetrics;
  rollouts: Rollout[];
}

export interface Series {
  name: string;
  points: { x: number; y: number }[];
}

export interface Curve {
  title: string;
  xLabel: string;
  series: Series[];
}

export interface ReportInput {
  /** Draws the completions (its `draw`) and labels the gallery's prompts (its first group). */
  env: TextEnv;
  title: string;
  subtitle?: string;
  evals: PolicyEval[];
  curves?: Curve[];
  /** Prompts shown side by side across policies. */
  galleryTasks?: number;
  /** Labels of the evaluations the gallery and the worst rollouts show (evaluated on the same tasks); all by default. */
  gallery?: string[];
  /** Worst rollouts shown per policy. */
  worst?: number;
  /** Extra rows (name -> value per policy) for the metrics table, e.g. quirk rates. */
  extraRows?: { name: string; values: (string | number)[] }[];
  /** The reward the gallery, the worst rollouts and the histogram lead with, with its components (the one a run trains
   *  on); the other rewards of each rollout are shown beside it. The environment's first evaluation reward by default. */
  lead?: string;
}

const PALETTE = ['#3b6fb6', '#c2571a', '#2f8f5b', '#8a4fb5', '#b33a3a', '#5d6b7a'];
const esc = escapeXml;
const fmt = (v: number, d = 3) => (Number.isFinite(v) ? v.toFixed(d) : 'n/a');
const fmtInterval = (i: Interval) => `${fmt(i.mean)} <span class="ci">[${fmt(i.lo)}, ${fmt(i.hi)}]</span>`;

function niceMax(v: number): number {
  if (!(v > 0)) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= v) return m * p;
  return 10 * p;
}

/** The charts' legend text: 11 px in the font the renderer measures (src/render/text.ts), which the page's CSS gives
 *  the charts, so that the widths laid out here are the widths drawn. */
const LEGEND_PX = 11;
const LEGEND_GAP = 18;

/** Legend entries (a swatch and a name) left to right at their measured widths, a new row where the next would pass
 *  the chart's right edge: before, entries sat a fixed 110-130 px apart and long names ran over each other. Returns
 *  the SVG and the height the rows take. */
function legend(names: string[], left: number, width: number): { svg: string; height: number } {
  let x = left;
  let row = 0;
  const parts = names.map((name, i) => {
    const w = 14 + textWidth(name, LEGEND_PX);
    if (x > left && x + w > width - 8) {
      x = left;
      row++;
    }
    const y = 8 + row * 16;
    const part = `<rect x="${x.toFixed(1)}" y="${y}" width="10" height="10" fill="${PALETTE[i % PALETTE.length]}"/><text x="${(x + 14).toFixed(1)}" y="${y + 9}" class="tick legend">${esc(name)}</text>`;
    x += w + LEGEND_GAP;
    return part;
  });
  return { svg: parts.join(''), height: 8 + (row + 1) * 16 };
}

/** A line chart; y range from the data (starting at 0 when all values are positive). */
export function lineChart(curve: Curve, width = 460, height = 240): string {
  const pts = curve.series.flatMap((s) => s.points).filter((p) => Number.isFinite(p.y) && Number.isFinite(p.x));
  const left = 48;
  const right = 12;
  const key = legend(curve.series.map((s) => s.name), left, width);
  const top = key.height + 4;
  const bottom = 36;
  const w = width - left - right;
  const h = height - top - bottom;
  if (pts.length === 0) {
    return `<svg class="chart" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}"><text x="${width / 2}" y="${height / 2}" text-anchor="middle" class="muted">${esc(curve.title)}: no data</text></svg>`;
  }
  const xMin = Math.min(...pts.map((p) => p.x));
  const xMax = Math.max(...pts.map((p) => p.x), xMin + 1);
  const yLo = Math.min(0, ...pts.map((p) => p.y));
  const yHi = niceMax(Math.max(...pts.map((p) => p.y)));
  const X = (x: number) => left + ((x - xMin) / (xMax - xMin)) * w;
  const Y = (y: number) => top + h - ((y - yLo) / (yHi - yLo || 1)) * h;
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((f) => yLo + f * (yHi - yLo));
  const grid = ticks
    .map((t) => `<line x1="${left}" x2="${left + w}" y1="${Y(t)}" y2="${Y(t)}" class="grid"/><text x="${left - 6}" y="${Y(t) + 4}" text-anchor="end" class="tick">${+t.toPrecision(3)}</text>`)
    .join('');
  const lines = curve.series
    .map((s, i) => {
      const ps = s.points.filter((p) => Number.isFinite(p.y));
      const d = ps.map((p, j) => `${j ? 'L' : 'M'}${X(p.x).toFixed(1)},${Y(p.y).toFixed(1)}`).join('');
      const dots = ps.length < 40 ? ps.map((p) => `<circle cx="${X(p.x).toFixed(1)}" cy="${Y(p.y).toFixed(1)}" r="2.5" fill="${PALETTE[i % PALETTE.length]}"/>`).join('') : '';
      return `<path d="${d}" fill="none" stroke="${PALETTE[i % PALETTE.length]}" stroke-width="2"/>${dots}`;
    })
    .join('');
  return `<svg class="chart" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-label="${esc(curve.title)}">
${grid}<line x1="${left}" x2="${left}" y1="${top}" y2="${top + h}" class="axis"/>${lines}${key.svg}
<text x="${left + w / 2}" y="${height - 6}" text-anchor="middle" class="tick">${esc(curve.xLabel)} (${+xMin.toPrecision(4)} to ${+xMax.toPrecision(4)})</text></svg>`;
}

/** Grouped bars of reward histograms (of `rewardName`, the main reward), one colour per policy. */
export function histogramChart(evals: PolicyEval[], rewardName: string, width = 460, height = 240): string {
  const left = 40;
  const key = legend(evals.map((e) => e.label), left, width);
  const top = key.height + 4;
  const bottom = 36;
  const w = width - left - 12;
  const h = height - top - bottom;
  const bins = 10;
  const shares = evals.map((e) => {
    const { counts } = histogram(e.rollouts.map((r) => r.rewards[rewardName] ?? r.reward), bins);
    const total = counts.reduce((a, b) => a + b, 0) || 1;
    return counts.map((c) => c / total);
  });
  const yHi = niceMax(Math.max(0.01, ...shares.flat()));
  const slot = w / bins;
  const bar = (slot - 4) / Math.max(1, evals.length);
  const bars = shares
    .map((s, p) =>
      s
        .map((v, b) => {
          const bh = (v / yHi) * h;
          return `<rect x="${(left + b * slot + 2 + p * bar).toFixed(1)}" y="${(top + h - bh).toFixed(1)}" width="${bar.toFixed(1)}" height="${bh.toFixed(1)}" fill="${PALETTE[p % PALETTE.length]}"><title>${esc(evals[p].label)}: ${(v * 100).toFixed(1)}%</title></rect>`;
        })
        .join(''),
    )
    .join('');
  const xt = Array.from({ length: bins + 1 }, (_, b) => (b % 2 === 0 ? `<text x="${left + b * slot}" y="${top + h + 17}" text-anchor="middle" class="tick">${(b / bins).toFixed(1)}</text>` : '')).join('');
  const yt = [0, 0.5, 1].map((f) => `<text x="${left - 6}" y="${top + h - f * h + 4}" text-anchor="end" class="tick">${Math.round(f * yHi * 100)}%</text><line x1="${left}" x2="${left + w}" y1="${top + h - f * h}" y2="${top + h - f * h}" class="grid"/>`).join('');
  return `<svg class="chart" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-label="reward distribution">${yt}${bars}${xt}${key.svg}<text x="${left + w / 2}" y="${height - 6}" text-anchor="middle" class="tick">${esc(rewardName)} reward</text></svg>`;
}

function picture(env: TextEnv, r: Rollout): string {
  if (!env.draw) return '';
  const drawn = env.draw(r.completion);
  if ('error' in drawn) return `<div class="nodiagram">no diagram: ${esc(drawn.error)}</div>`;
  return drawn.svg.replace(/^<\?xml[^>]*>\s*/, '').replace('<svg ', '<svg class="diagram" ');
}

/** The reward a rollout is shown by: the report's lead reward where the rollout has it, else its main one. */
const leadReward = (r: Rollout, lead: string) => r.rewards[lead] ?? r.reward;

/** The rollout's lead reward, named, with its parts; its other rewards beside it; its errors. */
function breakdown(r: Rollout, lead: string): string {
  const has = r.rewards[lead] !== undefined;
  const parts = (has && r.reward_components?.[lead]) || r.components;
  const comps = Object.entries(parts)
    .map(([k, v]) => `<tr><td>${esc(k)}</td><td class="num">${fmt(v, 2)}</td></tr>`)
    .join('');
  const errs = r.errors.length ? `<ul class="errors">${r.errors.slice(0, 6).map((e) => `<li>${esc(e)}</li>`).join('')}${r.errors.length > 6 ? `<li>... ${r.errors.length - 6} more</li>` : ''}</ul>` : '';
  const also = Object.entries(r.rewards)
    .filter(([name]) => !has || name !== lead)
    .map(([name, v]) => ` <span class="muted">(${esc(name)} ${fmt(v)})</span>`)
    .join('');
  return `<div class="reward">${has ? esc(lead) : 'reward'} <b>${fmt(leadReward(r, lead))}</b>${also}</div><table class="comps">${comps}</table>${errs}${judgmentLine(r)}`;
}

function judgmentLine(r: Rollout): string {
  const j = r.judgment;
  if (!j) return '';
  if (j.score === null) return `<div class="judge muted">judge ${esc(j.judge)}: no judgment (${esc(j.error ?? 'unknown')})</div>`;
  return `<div class="judge">judge ${esc(j.judge)}: <b>${fmt(j.score, 2)}</b>${j.cached ? ' <span class="muted">(cached)</span>' : ''} <span class="muted">${esc(j.reasoning)}</span></div>`;
}

/** Per evaluation with a judge: its mean, failures, rank correlations with each programmatic measure, disagreements. */
function judgeSection(evals: PolicyEval[]): string {
  const judged = evals.filter((e) => e.metrics.judge);
  if (judged.length === 0) return '';
  const parts = judged.map((e) => {
    const a = e.metrics.judge!;
    const corr = Object.entries(a.spearman)
      .map(([name, rho]) => `<tr><th>${esc(name)}</th><td>${rho === null ? 'n/a' : fmt(rho, 2)}</td></tr>`)
      .join('');
    const rows = a.disagreements
      .map((d) => `<tr><td>${esc(d.prompt.slice(0, 160))} <span class="muted">(${esc(d.task_id)}#${d.sample})</span></td><td>${fmt(d.reward, 2)}</td><td>${fmt(d.judge, 2)}</td><td>${esc(d.reasoning)}</td></tr>`)
      .join('');
    return `<h3>${esc(e.label)}: ${esc(a.judge)}</h3>
<p>${a.judged} judged (${a.cached} from the cache), <b>${a.failed} without a judgment</b> (the judge failed or answered garbage; their rewards leave the judge out); mean judgment ${fmtInterval(a.mean)}.</p>
<div class="scroll"><table class="metrics"><thead><tr><th>Spearman rank correlation of the judge with</th><th>rho</th></tr></thead><tbody>${corr}</tbody></table></div>
<p class="muted">Disagreements: the judge and the ${esc(a.versus)} reward at least 0.5 apart (${a.disagreements.length} listed).</p>
${rows ? `<div class="scroll"><table class="metrics"><thead><tr><th>request</th><th>${esc(a.versus)}</th><th>judge</th><th>judge's reasoning</th></tr></thead><tbody>${rows}</tbody></table></div>` : '<p class="muted">none</p>'}`;
  });
  return `<h2>Judge</h2><p class="muted">A chat model asked whether each diagram satisfies its request (a noisy component, not an oracle).</p>${parts.join('')}`;
}

function card(env: TextEnv, label: string, r: Rollout, lead: string): string {
  return `<figure class="card"><figcaption>${esc(label)}</figcaption>${picture(env, r)}${breakdown(r, lead)}<details><summary>completion</summary><pre>${esc(r.completion.slice(0, 4000))}</pre></details></figure>`;
}

function metricsTable(input: ReportInput): string {
  const ev = input.evals;
  const rubricNames = [...new Set(ev.flatMap((e) => Object.keys(e.metrics.reward)))];
  const componentNames = [...new Set(ev.flatMap((e) => Object.keys(e.metrics.components)))];
  const row = (name: string, cells: string[]) => `<tr><th>${esc(name)}</th>${cells.map((c) => `<td>${c}</td>`).join('')}</tr>`;
  const rows = [
    row('completions', ev.map((e) => String(e.metrics.completions))),
    ...rubricNames.map((n) => row(`mean ${n} reward`, ev.map((e) => (e.metrics.reward[n] ? fmtInterval(e.metrics.reward[n]) : '')))),
    row('parse rate', ev.map((e) => fmtInterval(e.metrics.parse_rate))),
    row('schema-valid rate', ev.map((e) => fmtInterval(e.metrics.schema_valid_rate))),
    row('renderer-accept rate', ev.map((e) => fmtInterval(e.metrics.renderer_accept_rate))),
    ...componentNames.map((c) => row(`${input.env.evalRewards[0]}: ${c}`, ev.map((e) => (e.metrics.components[c] ? fmtInterval(e.metrics.components[c]) : '')))),
    ...(input.extraRows ?? []).map((x) => row(x.name, x.values.map((v) => (typeof v === 'number' ? fmt(v) : esc(v))))),
    row('completion tokens', ev.map((e) => String(e.metrics.completion_tokens))),
    row('generation time (s)', ev.map((e) => fmt(e.metrics.generation_seconds, 1))),
  ];
  return `<table class="metrics"><thead><tr><th></th>${ev.map((e) => `<th>${esc(e.label)}</th>`).join('')}</tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

/** The main reward by the environment's first group (the diagram: its kind); empty where it has none. */
function byGroupSection(evals: PolicyEval[]): string {
  const key = Object.keys(evals[0]?.metrics ?? {}).find((k): k is `by_${string}` => k.startsWith('by_'));
  if (!key) return '';
  const group = key.slice('by_'.length);
  const values = [...new Set(evals.flatMap((e) => Object.keys(e.metrics[key] ?? {})))];
  const cell = (m: GroupMetrics | undefined) => `<td>${m ? `${fmtInterval(m.reward)} <span class="muted">n=${m.n}</span>` : ''}</td>`;
  const table = `<table class="metrics"><thead><tr><th>${esc(group)}</th>${evals.map((e) => `<th>${esc(e.label)}</th>`).join('')}</tr></thead><tbody>${values
    .map((v) => `<tr><th>${esc(v)}</th>${evals.map((e) => cell(e.metrics[key]?.[v])).join('')}</tr>`)
    .join('')}</tbody></table>`;
  return `<h2>By ${esc(group)}</h2><div class="scroll">${table}</div>`;
}

export const REPORT_CSS = `body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1f2933;margin:0;background:#f6f7f9}
main{max-width:1280px;margin:0 auto;padding:24px}h1{margin:0 0 4px}h2{margin-top:36px;border-bottom:1px solid #d9dee4;padding-bottom:4px}
.muted,.ci{color:#6b7785}.ci{font-size:12px}table.metrics{border-collapse:collapse;background:#fff}table.metrics td,table.metrics th{padding:5px 10px;border:1px solid #e1e5ea;text-align:left}
table.metrics td{font-variant-numeric:tabular-nums}
.scroll{overflow-x:auto;max-width:100%}.scroll table.metrics th:first-child,.scroll table.metrics td:first-child{position:sticky;left:0;background:#fff;z-index:1;box-shadow:1px 0 0 #e1e5ea}
.charts{display:flex;flex-wrap:wrap;gap:16px}.chart{background:#fff;border:1px solid #e1e5ea}
.chart .grid{stroke:#eceff3}.chart .axis{stroke:#9aa5b1}.chart .tick{font-size:11px;fill:#52606d}.chart text{font-family:"${FONT_FAMILY}",Verdana,sans-serif}
.row{display:grid;grid-template-columns:repeat(var(--cols),minmax(0,1fr));gap:12px;margin:12px 0 24px}.prompt{font-weight:600;margin-top:18px}
.card{margin:0;background:#fff;border:1px solid #e1e5ea;border-radius:6px;padding:8px}.card figcaption{font-weight:600;margin-bottom:4px}
svg.diagram{width:100%;height:auto;max-height:320px;display:block}.nodiagram{height:120px;display:flex;align-items:center;justify-content:center;color:#b42318;background:#fff5f5;padding:8px}
.comps{font-size:12px;border-collapse:collapse}.comps td{padding:0 8px 0 0}.num{text-align:right}.errors{color:#b42318;font-size:12px;margin:4px 0;padding-left:18px}
pre{white-space:pre-wrap;word-break:break-all;font-size:11px;max-height:240px;overflow:auto;background:#f3f4f6;padding:6px}`;

/** The report as one HTML string. */
export function renderReport(input: ReportInput): string {
  const lead = input.lead ?? input.env.evalRewards[0];
  const evals = input.gallery ? input.evals.filter((e) => input.gallery!.includes(e.label)) : input.evals;
  const galleryN = input.galleryTasks ?? 8;
  const worstN = input.worst ?? 6;
  const firstSamples = evals.map((e) => new Map(e.rollouts.filter((r) => r.sample === 0).map((r) => [r.task_id, r])));
  const shared = [...(firstSamples[0]?.keys() ?? [])].filter((id) => firstSamples.every((m) => m.has(id)));
  // Spread the gallery over the task list so that it shows several kinds, not the first few tasks.
  const step = Math.max(1, Math.floor(shared.length / Math.max(1, galleryN)));
  const galleryIds = shared.filter((_, i) => i % step === 0).slice(0, galleryN);
  const gallery = galleryIds
    .map((id) => {
      const first = firstSamples[0].get(id)!;
      const group = Object.values(input.env.groups?.({ id, prompt: first.prompt, spec: first.spec }) ?? {})[0];
      return `<div class="prompt">${esc(first.prompt)} <span class="muted">(${group === undefined ? '' : `${esc(group)}, `}${esc(id)})</span></div><div class="row" style="--cols:${evals.length}">${evals.map((e, i) => card(input.env, e.label, firstSamples[i].get(id)!, lead)).join('')}</div>`;
    })
    .join('');
  const worst = evals
    .map((e) => {
      const rs = [...e.rollouts].sort((a, b) => leadReward(a, lead) - leadReward(b, lead)).slice(0, worstN);
      return `<h3>${esc(e.label)}</h3>${rs.map((r) => `<div class="prompt">${esc(r.prompt)}</div><div class="row" style="--cols:1">${card(input.env, `${e.label}, ${r.task_id}`, r, lead)}</div>`).join('')}`;
    })
    .join('');
  const curves = (input.curves ?? []).map((c) => `<div><div class="muted">${esc(c.title)}</div>${lineChart(c)}</div>`).join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${esc(input.title)}</title><style>${REPORT_CSS}</style></head>
<body><main>
<h1>${esc(input.title)}</h1>${input.subtitle ? `<div class="muted">${esc(input.subtitle)}</div>` : ''}
<h2>Metrics</h2><p class="muted">Means with 95% bootstrap intervals over held-out completions.</p><div class="scroll">${metricsTable(input)}</div>
${judgeSection(input.evals)}
<h2>Reward distribution and training curves</h2><div class="charts"><div><div class="muted">share of completions per ${esc(lead)}-reward bin</div>${histogramChart(evals, lead)}</div>${curves}</div>
${byGroupSection(input.evals)}
<h2>Gallery: the same held-out prompts</h2>${gallery || '<p class="muted">no prompt was evaluated by every policy</p>'}
<h2>Worst-scoring rollouts</h2><p class="muted">Where reward hacking and failure modes show.</p>${worst}
</main></body></html>
`;
}
