// Does a shape's label name an entity? Matching that survives case, punctuation, plurals and common abbreviations,
// but pays full price only for the fuller name and refuses labels stuffed with extra words.

/** One word of a label in canonical form: lowercase, singular, abbreviations expanded. */
interface Word {
  stem: string;
  /** The label wrote an abbreviation here (e.g. "DB" for "database"). */
  abbreviated: boolean;
}

export interface NormalizedLabel {
  words: Word[];
  /** The stems run together: "front-end", "Front End" and "frontend" agree on it. */
  compact: string;
  /** How many of `words` the label wrote as abbreviations. */
  abbreviations: number;
  /** One bit per stem (a hash of it, mod 32): labels whose masks share no bit share no stem. */
  stemMask: number;
}

/** Credit a label gets when it names an entity but abbreviates it ("DB" for "Database"). */
export const ABBREVIATION_CREDIT = 0.5;
/** Credit lost per extra word beyond the entity's own ("Postgres Database" for "Database"). */
export const EXTRA_WORD_COST = 0.2;

// Words that carry no identity in a label; dropped on both sides.
const STOPWORDS = new Set(['a', 'an', 'the', 'of', 'for', 'and', 'or', 'to', 'in', 'on', 'at', 'by', 'with', 'from', 'into', 'via']);

// Abbreviation -> fuller name. Keys and values are written plainly and normalized once at load.
const ABBREVIATIONS: Record<string, string> = {
  db: 'database',
  auth: 'authentication',
  authn: 'authentication',
  authz: 'authorization',
  svc: 'service',
  srv: 'server',
  repo: 'repository',
  config: 'configuration',
  cfg: 'configuration',
  conf: 'configuration',
  k8s: 'kubernetes',
  msg: 'message',
  env: 'environment',
  info: 'information',
  doc: 'document',
  img: 'image',
  req: 'request',
  resp: 'response',
  mgmt: 'management',
  mgr: 'manager',
  prod: 'production',
  dev: 'development',
  lb: 'load balancer',
  mq: 'message queue',
  gw: 'gateway',
  notif: 'notification',
  pwd: 'password',
  acct: 'account',
  txn: 'transaction',
  addr: 'address',
  err: 'error',
  src: 'source',
  dst: 'destination',
  dest: 'destination',
  func: 'function',
  fn: 'function',
  param: 'parameter',
  pkg: 'package',
  lib: 'library',
  dir: 'directory',
  sys: 'system',
  stats: 'statistics',
  sched: 'scheduler',
  calc: 'calculation',
  util: 'utility',
  ctx: 'context',
};

const SPLIT = /[^\p{L}\p{N}]+/u;
const ACRONYM_PLURAL = /^[A-Z0-9]{2,}s$/;

/** A plural-insensitive stem: "caches"/"cache" and "queries"/"query" meet; "status" and "analysis" stay whole. */
export function stem(word: string): string {
  let w = word;
  if (w.length > 3 && w.endsWith('ies')) return w.slice(0, -3) + 'y';
  if (w.length > 3 && w.endsWith('s') && !w.endsWith('ss') && !w.endsWith('us') && !w.endsWith('is')) w = w.slice(0, -1);
  if (w.length > 3 && w.endsWith('e')) w = w.slice(0, -1);
  return w;
}

function rawWords(text: string): string[] {
  const out: string[] = [];
  const parts = text.split(SPLIT).filter(Boolean);
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i];
    // "APIs", "DBs": an acronym's plural keeps its case, so strip the s before lowercasing hides it.
    const word = ACRONYM_PLURAL.test(part) ? part.slice(0, -1) : part;
    const lower = word.toLowerCase();
    // An article or preposition comes before what it belongs to; as the last word it is a name: "A", "Sensor A", "Log in".
    if (!STOPWORDS.has(lower) || i === parts.length - 1) out.push(lower);
  }
  return out;
}

/**
 * The text with every abbreviation written out ("vector DB" -> "vector database"). Entities extracted from a prompt
 * go through it, so that the fuller name earns full credit even when the user typed the short one.
 */
export function spellOut(text: string): string {
  return text.replace(/[\p{L}\p{N}]+/gu, (word) => {
    const lower = word.toLowerCase();
    return Object.hasOwn(ABBREVIATIONS, lower) ? ABBREVIATIONS[lower] : word;
  });
}

const EXPANSIONS = new Map<string, string[]>(
  Object.entries(ABBREVIATIONS).map(([short, full]) => [stem(short), rawWords(full).map(stem)]),
);

/** A 32-bit hash of a string, for NormalizedLabel.stemMask (5 bits of a stem's). */
function hash32(text: string): number {
  let h = text.length;
  for (let i = 0; i < text.length; i++) h = (h * 31 + text.charCodeAt(i)) | 0;
  return h;
}

/** A 5-bit hash of a stem, for NormalizedLabel.stemMask. */
function stemBit(stem: string): number {
  const h = hash32(stem);
  return (h ^ (h >>> 5) ^ (h >>> 10)) & 31;
}

const CACHE_LIMIT = 20_000;
const cache = new Map<string, NormalizedLabel>();

/** Canonical words of a label. Cached: the same labels recur across a GRPO group and across steps. */
export function normalizeLabel(text: string): NormalizedLabel {
  const hit = cache.get(text);
  if (hit) return hit;
  const words: Word[] = [];
  let abbreviations = 0;
  for (const raw of rawWords(text)) {
    const s = stem(raw);
    const full = EXPANSIONS.get(s);
    if (full) {
      for (const f of full) words.push({ stem: f, abbreviated: true });
      abbreviations += full.length;
    } else words.push({ stem: s, abbreviated: false });
  }
  let stemMask = 0;
  for (const w of words) stemMask |= 1 << stemBit(w.stem);
  const compact = words.map((w) => w.stem).join('');
  const result: NormalizedLabel = { words, compact, abbreviations, stemMask };
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(text, result);
  return result;
}

/** Extra label words an entity of `n` words tolerates before the label counts as stuffed. */
function extraAllowance(n: number): number {
  return n <= 1 ? 1 : Math.ceil(n / 2);
}

/**
 * How well `label` names `entity`, in [0, 1]. 1: the entity's words, fuller forms, nothing else.
 * Abbreviations get ABBREVIATION_CREDIT; each extra word costs EXTRA_WORD_COST; too many extra words, or a label
 * missing more than half of a multi-word entity, gives 0.
 */
export function labelMatch(entity: string | NormalizedLabel, label: string | NormalizedLabel): number {
  const e = typeof entity === 'string' ? normalizeLabel(entity) : entity;
  const l = typeof label === 'string' ? normalizeLabel(label) : label;
  const lw = l.words;
  if (e.words.length === 0 || lw.length === 0) return 0;
  // An abbreviation costs only where the entity itself is spelled out: a spec that says "Auth Service" is matched in full by it.
  if (e.compact === l.compact) return l.abbreviations > e.abbreviations ? ABBREVIATION_CREDIT : 1;
  if ((e.stemMask & l.stemMask) === 0) return 0;
  // Each entity word matches one label word at most: a label longer than the entity by more than its allowance has too
  // many extra words whatever it shares, found without comparing every word of it (a 30,000-word label took 2.6 s
  // against 200 entities).
  const allowance = extraAllowance(e.words.length);
  if (lw.length - e.words.length > allowance) return 0;
  let common = 0;
  let abbreviated = false;
  // Label words already matched: a bit mask for the usual short label, a list beyond 32 words.
  let usedBits = 0;
  let usedList: boolean[] | null = null;
  for (const ew of e.words) {
    for (let j = 0; j < lw.length; j++) {
      if (lw[j].stem !== ew.stem) continue;
      if (j < 32) {
        if (usedBits & (1 << j)) continue;
        usedBits |= 1 << j;
      } else {
        usedList ??= [];
        if (usedList[j]) continue;
        usedList[j] = true;
      }
      common++;
      abbreviated ||= lw[j].abbreviated && !ew.abbreviated;
      break;
    }
  }
  if (common === 0) return 0;
  const abbreviation = abbreviated ? ABBREVIATION_CREDIT : 1;
  const recall = common / e.words.length;
  const extras = lw.length - common;
  if (extras > allowance) return 0;
  let base: number;
  if (recall === 1) base = 1;
  else if (e.words.length >= 2 && recall >= 0.5 && extras === 0) base = 0.5 * recall;
  else return 0;
  return base * (1 - EXTRA_WORD_COST * extras) * abbreviation;
}

/**
 * Best one-to-one assignment of rows to columns maximising total weight (Hungarian method). Returns, for each row,
 * its column or -1. Weights must be >= 0; zero-weight pairs are reported as -1.
 */
export function bestAssignment(weights: number[][]): number[] {
  const n = weights.length;
  const m = n === 0 ? 0 : weights[0].length;
  if (n === 0 || m === 0) return new Array<number>(n).fill(-1);
  const unambiguous = uncontestedAssignment(weights, m);
  if (unambiguous) return unambiguous;
  if (n <= m) return hungarian(weights, n, m);
  // The method wants rows <= columns: with more rows (entities than shapes) it assigns the columns to rows instead.
  // Padding the columns with zero-weight dummies, as it once did, cost O(n^3): 3.7 s for 800 entities and 40 shapes.
  const transposed: number[][] = [];
  for (let j = 0; j < m; j++) {
    const column = new Array<number>(n);
    for (let i = 0; i < n; i++) column[i] = weights[i][j];
    transposed.push(column);
  }
  const rowOf = hungarian(transposed, m, n);
  const result = new Array<number>(n).fill(-1);
  for (let j = 0; j < m; j++) if (rowOf[j] !== -1) result[rowOf[j]] = j;
  return result;
}

/** The Hungarian method on n rows of m >= n columns, in O(n^2 m): for each row, its column, or -1 at zero weight. */
function hungarian(weights: number[][], n: number, m: number): number[] {
  const u = new Float64Array(n + 1);
  const v = new Float64Array(m + 1);
  const p = new Int32Array(m + 1); // p[j]: row (1-based) assigned to column j
  const way = new Int32Array(m + 1);
  const minv = new Float64Array(m + 1);
  const usedCol = new Uint8Array(m + 1);
  for (let i = 1; i <= n; i++) {
    p[0] = i;
    let j0 = 0;
    minv.fill(Infinity);
    usedCol.fill(0);
    do {
      usedCol[j0] = 1;
      const i0 = p[j0];
      const row = weights[i0 - 1];
      let delta = Infinity;
      let j1 = 0;
      for (let j = 1; j <= m; j++) {
        if (usedCol[j]) continue;
        const cur = -row[j - 1] - u[i0] - v[j];
        if (cur < minv[j]) {
          minv[j] = cur;
          way[j] = j0;
        }
        if (minv[j] < delta) {
          delta = minv[j];
          j1 = j;
        }
      }
      for (let j = 0; j <= m; j++) {
        if (usedCol[j]) {
          u[p[j]] += delta;
          v[j] -= delta;
        } else {
          minv[j] -= delta;
        }
      }
      j0 = j1;
    } while (p[j0] !== 0);
    do {
      const j1 = way[j0];
      p[j0] = p[j1];
      j0 = j1;
    } while (j0 !== 0);
  }
  const result = new Array<number>(n).fill(-1);
  for (let j = 1; j <= m; j++) {
    const i = p[j] - 1;
    if (i >= 0 && weights[i][j - 1] > 0) result[i] = j - 1;
  }
  return result;
}

/**
 * When every row has at most one positive weight and no column is wanted by two rows, the best assignment is those
 * pairs and nothing else (any other assignment leaves out a positive weight): the usual case, found without the search.
 */
function uncontestedAssignment(weights: number[][], m: number): number[] | null {
  const result = new Array<number>(weights.length).fill(-1);
  const taken = new Uint8Array(m);
  for (let i = 0; i < weights.length; i++) {
    const row = weights[i];
    for (let j = 0; j < m; j++) {
      if (!(row[j] > 0)) continue;
      if (result[i] !== -1 || taken[j]) return null;
      result[i] = j;
      taken[j] = 1;
    }
  }
  return result;
}

export interface EntityMatch {
  /** For each entity, the index of the label matched to it, or -1. */
  assignment: number[];
  /** For each entity, the match quality of its label (0 when unmatched). */
  quality: number[];
}

/** Matches entities to labels one-to-one so that the total match quality is highest. */
export function matchEntities(entities: readonly string[], labels: readonly string[]): EntityMatch {
  const normLabels = labels.map(normalizeLabel);
  const weights = entities.map((e) => {
    const ne = normalizeLabel(e);
    return normLabels.map((l) => labelMatch(ne, l));
  });
  const assignment = bestAssignment(weights);
  const quality = assignment.map((j, i) => (j === -1 ? 0 : weights[i][j]));
  return { assignment, quality };
}
