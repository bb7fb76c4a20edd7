// Teacher quirks: habits a real teacher model has, switched on with a rate each, so that a run can show
// SFT copying them and GRPO moving past them. The detectors measure the same habits in any completion.
import type { Canvas } from '../language/canvas.ts';
import type { DiagramSpec } from '../tasks/spec.ts';

export const QUIRK_NAMES = ['abbrev', 'cramped', 'overlap', 'missing_edge', 'prose'] as const;
export type QuirkName = (typeof QUIRK_NAMES)[number];

/** Probability, per completion, that each quirk fires. Missing quirks never fire. */
export type QuirkRates = Partial<Record<QuirkName, number>>;

export const QUIRK_HELP: Record<QuirkName, string> = {
  abbrev: 'abbreviated labels (Database -> DB, Authentication -> Auth, Service -> Svc)',
  cramped: 'shapes a few units apart',
  overlap: 'one shape pushed onto its neighbour',
  missing_edge: 'one requested arrow left out',
  prose: 'prose or markdown fences around the JSON',
};

/** Parses `abbrev=0.3,cramped=0.2`; throws an Error naming the bad entry. */
export function parseQuirks(text: string): QuirkRates {
  const rates: QuirkRates = {};
  for (const entry of text.split(',').map((s) => s.trim()).filter(Boolean)) {
    const m = /^([a-z_]+)\s*=\s*(\S+)$/.exec(entry);
    if (!m) throw new Error(`quirk "${entry}" is not name=rate (e.g. abbrev=0.3)`);
    const [, name, value] = m;
    if (!(QUIRK_NAMES as readonly string[]).includes(name)) {
      throw new Error(`unknown quirk "${name}" (known: ${QUIRK_NAMES.join(', ')})`);
    }
    const rate = Number(value);
    if (!Number.isFinite(rate) || rate < 0 || rate > 1) throw new Error(`quirk ${name}: rate must be a number in [0, 1], got "${value}"`);
    rates[name as QuirkName] = rate;
  }
  return rates;
}

/** Draws which quirks fire. One draw per known quirk, in a fixed order, so that adding a rate does not reshuffle the others. */
export function drawQuirks(rates: QuirkRates, random: () => number): Set<QuirkName> {
  const fired = new Set<QuirkName>();
  for (const name of QUIRK_NAMES) {
    const u = random();
    if (u < (rates[name] ?? 0)) fired.add(name);
  }
  return fired;
}

// Full word -> the teacher's short form. Every short form is one the strong reward's label matcher knows,
// so an abbreviated label still names its entity, at reduced credit.
const SHORT_FORMS: Record<string, string> = {
  database: 'DB',
  authentication: 'Auth',
  service: 'Svc',
  server: 'Srv',
  repository: 'Repo',
  configuration: 'Config',
  kubernetes: 'K8s',
  message: 'Msg',
  environment: 'Env',
  information: 'Info',
  document: 'Doc',
  image: 'Img',
  request: 'Req',
  response: 'Resp',
  management: 'Mgmt',
  manager: 'Mgr',
  production: 'Prod',
  development: 'Dev',
  gateway: 'GW',
  notification: 'Notif',
  password: 'Pwd',
  account: 'Acct',
  transaction: 'Txn',
  address: 'Addr',
  error: 'Err',
  source: 'Src',
  destination: 'Dest',
  function: 'Func',
  parameter: 'Param',
  package: 'Pkg',
  library: 'Lib',
  directory: 'Dir',
  system: 'Sys',
  statistics: 'Stats',
  scheduler: 'Sched',
  calculation: 'Calc',
  utility: 'Util',
  context: 'Ctx',
};

/** The short form of one word, keeping a plural: "Databases" -> "DBs". Null when the teacher has none. */
function shortForm(word: string): string | null {
  const lower = word.toLowerCase();
  const direct = SHORT_FORMS[lower];
  if (direct) return direct;
  if (lower.endsWith('s') && SHORT_FORMS[lower.slice(0, -1)] && !lower.endsWith('ss')) return `${SHORT_FORMS[lower.slice(0, -1)]}s`;
  if (lower.endsWith('ies') && SHORT_FORMS[`${lower.slice(0, -3)}y`]) return `${SHORT_FORMS[`${lower.slice(0, -3)}y`]}s`;
  return null;
}

/** "User Database Service" -> "User DB Svc". Words without a short form stay as they are. */
export function abbreviateLabel(label: string): string {
  return label.replace(/\p{L}+/gu, (w) => shortForm(w) ?? w);
}

const words = (text: string) => text.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean);

/** Wraps JSON the way chatty models do; which wrapping is picked by `u` in [0, 1). */
export function wrapInProse(json: string, u: number): string {
  const wrappers = [
    (j: string) => `\`\`\`json\n${j}\n\`\`\``,
    (j: string) => `Here is the diagram:\n\n\`\`\`json\n${j}\n\`\`\``,
    (j: string) => `Sure! Here's a diagram for your request.\n${j}\nLet me know if you want any changes.`,
    (j: string) => `\`\`\`\n${j}\n\`\`\`\nThe shapes are laid out left to right.`,
  ];
  return wrappers[Math.min(wrappers.length - 1, Math.floor(u * wrappers.length))](json);
}

// ---- Detectors: the same habits measured on any completion's canvas, for "do the quirks recede" under GRPO.

export interface RateCount {
  /** Cases showing the habit. */
  hits: number;
  /** Cases where the habit could show. */
  eligible: number;
}

export const rateOf = (c: RateCount): number => (c.eligible === 0 ? 0 : c.hits / c.eligible);

/**
 * Entities with an abbreviable word (eligible), and how many of them the canvas labels in short form (hits):
 * a label whose words are the entity's with at least one word replaced by the teacher's short form.
 */
export function abbreviationCount(canvas: Canvas, spec: DiagramSpec): RateCount {
  const labels = new Set(canvas.shapeList().map((s) => words(s.text).join(' ')));
  let hits = 0;
  let eligible = 0;
  for (const entity of spec.entities) {
    const full = words(entity);
    const short = words(abbreviateLabel(entity));
    if (short.join(' ') === full.join(' ')) continue;
    eligible++;
    if (labels.has(short.join(' '))) hits++;
  }
  return { hits, eligible };
}

export const abbreviationRate = (canvas: Canvas, spec: DiagramSpec): number => rateOf(abbreviationCount(canvas, spec));

/** Shapes whose boxes overlap another shape's (touching edges do not count), out of all shapes. */
export function overlapCount(canvas: Canvas): RateCount {
  const shapes = canvas.shapeList();
  const hit = new Set<string>();
  for (let i = 0; i < shapes.length; i++) {
    for (let j = i + 1; j < shapes.length; j++) {
      const a = shapes[i], b = shapes[j];
      if (a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h) {
        hit.add(a.id);
        hit.add(b.id);
      }
    }
  }
  return { hits: hit.size, eligible: shapes.length };
}

export const overlapRate = (canvas: Canvas): number => rateOf(overlapCount(canvas));

/** Gap below which two shapes read as cramped. */
export const CRAMPED_GAP = 20;

/** Shapes closer than CRAMPED_GAP to another shape without overlapping it, out of all shapes. */
export function crampedCount(canvas: Canvas): RateCount {
  const shapes = canvas.shapeList();
  const hit = new Set<string>();
  for (let i = 0; i < shapes.length; i++) {
    for (let j = i + 1; j < shapes.length; j++) {
      const a = shapes[i], b = shapes[j];
      const gapX = Math.max(b.x - (a.x + a.w), a.x - (b.x + b.w));
      const gapY = Math.max(b.y - (a.y + a.h), a.y - (b.y + b.h));
      const gap = Math.max(gapX, gapY);
      if (gap >= 0 && gap < CRAMPED_GAP) {
        hit.add(a.id);
        hit.add(b.id);
      }
    }
  }
  return { hits: hit.size, eligible: shapes.length };
}

export const crampedRate = (canvas: Canvas): number => rateOf(crampedCount(canvas));

/**
 * Spec edges with no arrow between shapes labelled like their entities (exact words or the short form), out of
 * the spec edges whose two entities are both on the canvas: a missing entity is a different failure.
 */
export function missingEdgeCount(canvas: Canvas, spec: DiagramSpec): RateCount {
  const idsFor = (entity: string) => {
    const forms = new Set([words(entity).join(' '), words(abbreviateLabel(entity)).join(' ')]);
    return new Set(canvas.shapeList().filter((s) => forms.has(words(s.text).join(' '))).map((s) => s.id));
  };
  let hits = 0;
  let eligible = 0;
  for (const [from, to] of spec.edges) {
    const a = idsFor(from), b = idsFor(to);
    if (a.size === 0 || b.size === 0) continue;
    eligible++;
    if (!canvas.arrows.some((r) => a.has(r.from) && b.has(r.to))) hits++;
  }
  return { hits, eligible };
}

export const missingEdgeRate = (canvas: Canvas, spec: DiagramSpec): number => rateOf(missingEdgeCount(canvas, spec));

/** Whether the completion is anything other than bare JSON. */
export function hasProse(completion: string): boolean {
  const t = completion.trim();
  if (!t.startsWith('{')) return true;
  // Text after the top-level object is prose; an answer cut off inside its object (at the token limit) is truncated,
  // which the finish reason reports, not prose.
  const end = topLevelEnd(t);
  return end >= 0 && end < t.length - 1;
}

/** Index of the brace that closes the object opening at 0, skipping strings; -1 if it never closes. */
function topLevelEnd(t: string): number {
  let depth = 0, inString = false;
  for (let i = 0; i < t.length; i++) {
    const c = t[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') depth++;
    else if ((c === '}' || c === ']') && --depth === 0) return i;
  }
  return -1;
}

export interface QuirkReport {
  abbrev: number;
  cramped: number;
  overlap: number;
  missing_edge: number;
  prose: number;
}

/** Every detector on one completion; a completion that did not yield a canvas shows only `prose`. */
export function detectQuirks(completion: string, canvas: Canvas | null, spec: DiagramSpec): QuirkReport {
  return {
    abbrev: canvas ? abbreviationRate(canvas, spec) : 0,
    cramped: canvas ? crampedRate(canvas) : 0,
    overlap: canvas ? overlapRate(canvas) : 0,
    missing_edge: canvas ? missingEdgeRate(canvas, spec) : 0,
    prose: hasProse(completion) ? 1 : 0,
  };
}
