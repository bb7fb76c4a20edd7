// Statistics for evaluation: bootstrap confidence intervals, histograms and pass@k.
import { mulberry32 } from '../random.ts';

export interface Interval {
  mean: number;
  lo: number;
  hi: number;
  n: number;
}

export interface BootstrapOptions {
  resamples?: number;
  /** Two-sided level: 0.95 gives the 2.5th and 97.5th percentiles. */
  level?: number;
  seed?: number;
}

function quantile(sorted: Float64Array, q: number): number {
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

const meanOf = (xs: ArrayLike<number>) => {
  let s = 0;
  for (let i = 0; i < xs.length; i++) s += xs[i];
  return xs.length ? s / xs.length : NaN;
};

function percentileInterval(point: number, stats: Float64Array, n: number, level: number): Interval {
  stats.sort();
  const tail = (1 - level) / 2;
  return { mean: point, lo: quantile(stats, tail), hi: quantile(stats, 1 - tail), n };
}

/** Percentile bootstrap interval of the mean. */
export function bootstrapMean(values: ArrayLike<number>, o: BootstrapOptions = {}): Interval {
  const n = values.length;
  if (n === 0) return { mean: NaN, lo: NaN, hi: NaN, n: 0 };
  const B = o.resamples ?? 2000;
  const rnd = mulberry32(o.seed ?? 1);
  const stats = new Float64Array(B);
  for (let b = 0; b < B; b++) {
    let s = 0;
    for (let i = 0; i < n; i++) s += values[Math.floor(rnd() * n)];
    stats[b] = s / n;
  }
  return percentileInterval(meanOf(values), stats, n, o.level ?? 0.95);
}

/**
 * Interval of mean(b) - mean(a). Paired (same tasks, resampled together) when both have the same length and
 * `paired` is not false: pairing removes the task-difficulty variance that both policies share.
 */
export function bootstrapDiff(a: ArrayLike<number>, b: ArrayLike<number>, o: BootstrapOptions & { paired?: boolean } = {}): Interval {
  const paired = o.paired ?? a.length === b.length;
  if (paired && a.length !== b.length) throw new Error(`paired bootstrap needs equal lengths, got ${a.length} and ${b.length}`);
  if (a.length === 0 || b.length === 0) return { mean: NaN, lo: NaN, hi: NaN, n: 0 };
  const B = o.resamples ?? 2000;
  const rnd = mulberry32(o.seed ?? 1);
  const stats = new Float64Array(B);
  for (let r = 0; r < B; r++) {
    if (paired) {
      let s = 0;
      for (let i = 0; i < a.length; i++) {
        const j = Math.floor(rnd() * a.length);
        s += b[j] - a[j];
      }
      stats[r] = s / a.length;
    } else {
      let sa = 0;
      let sb = 0;
      for (let i = 0; i < a.length; i++) sa += a[Math.floor(rnd() * a.length)];
      for (let i = 0; i < b.length; i++) sb += b[Math.floor(rnd() * b.length)];
      stats[r] = sb / b.length - sa / a.length;
    }
  }
  return percentileInterval(meanOf(b) - meanOf(a), stats, Math.min(a.length, b.length), o.level ?? 0.95);
}

/** Counts in `bins` equal-width bins over [min, max]; the last bin includes max. */
export function histogram(values: ArrayLike<number>, bins = 10, min = 0, max = 1): { edges: number[]; counts: number[] } {
  const counts = new Array<number>(bins).fill(0);
  const width = (max - min) / bins;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (!(v >= min && v <= max)) continue;
    counts[Math.min(bins - 1, Math.floor((v - min) / width))]++;
  }
  return { edges: Array.from({ length: bins + 1 }, (_, i) => min + i * width), counts };
}

/** Unbiased pass@k from n samples of which c passed: 1 - C(n-c, k) / C(n, k). */
export function passAtK(n: number, c: number, k: number): number {
  if (k > n) throw new Error(`pass@${k} needs at least ${k} samples, got ${n}`);
  if (n - c < k) return 1;
  let ratio = 1;
  for (let i = n - c + 1; i <= n; i++) ratio *= 1 - k / i;
  return 1 - ratio;
}

/** Ranks from 1, ties given the mean of the ranks they span. */
function ranks(xs: readonly number[]): number[] {
  const order = xs.map((_, i) => i).sort((a, b) => xs[a] - xs[b]);
  const out = new Array<number>(xs.length);
  for (let i = 0; i < order.length; ) {
    let j = i;
    while (j + 1 < order.length && xs[order[j + 1]] === xs[order[i]]) j++;
    for (let k = i; k <= j; k++) out[order[k]] = (i + j) / 2 + 1;
    i = j + 1;
  }
  return out;
}

/** Spearman's rank correlation (Pearson's on tie-averaged ranks); null under 3 pairs or when either side is constant. */
export function spearman(xs: readonly number[], ys: readonly number[]): number | null {
  if (xs.length !== ys.length) throw new RangeError(`spearman: ${xs.length} values against ${ys.length}`);
  if (xs.length < 3) return null;
  const rx = ranks(xs);
  const ry = ranks(ys);
  const mean = (rx.length + 1) / 2;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < rx.length; i++) {
    sxy += (rx[i] - mean) * (ry[i] - mean);
    sxx += (rx[i] - mean) ** 2;
    syy += (ry[i] - mean) ** 2;
  }
  return sxx === 0 || syy === 0 ? null : sxy / Math.sqrt(sxx * syy);
}
