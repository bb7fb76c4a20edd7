// The label overflow of layout.ts (measuredOverflow) and the layout's summed penalty (layoutScoreFromGeometry's
// total, before Math.exp, which stays JavaScript's) on strong-check.ts's canvas, with the same float operations in
// the same order. Each interned label's measure (measureLabel: per paragraph, per word, each character's advance in
// em) is handed over once per intern epoch by src/reward/strong-fast.ts, beside its words (strong-match.ts); the
// weights come from layout.ts (setOverflowConstants, once at load), which stays the definition the tests hold this to.
import { reservedBase } from './json-scan';
import { boxH, boxW, counts, geometry, INTERN_MAX, LABEL_ABSENT, shapeKind, shapeLabel } from './strong-check';

// Sized for the intern arena's 65,536 bytes of labels (strong-check.ts), which start over with the epoch: a label
// has no more characters than bytes, and no more counts than bytes plus 2 (labels: at most INTERN_MAX).
/** Per label: its paragraph count, then per paragraph its word count and each word's character count (i32). */
export const MEASURE_COUNTS: i32 = 73728;
/** Per label: each character's advance in em, word after word (f64). */
export const MEASURE_ADVANCES: i32 = 65536;
// The tables lie past the static data, in json-scan.ts's RESERVED_BYTES (the module's initial memory does not hold
// them): the advances, the counts, then per interned label where its counts start (-1: not handed over) and where
// its advances start (2 i32, INTERN_MAX of them), then per interned label its widest paragraph on one line
// (MeasuredLabel.widest, f64); 851,968 bytes in all.
@inline function measureAdvances(): usize {
  return reservedBase();
}
@inline function measureCounts(): usize {
  return reservedBase() + <usize>MEASURE_ADVANCES * 8;
}
@inline function measureInfo(): usize {
  return measureCounts() + <usize>MEASURE_COUNTS * 4;
}
@inline function measureWidest(): usize {
  return measureInfo() + <usize>INTERN_MAX * 8;
}

let tolerance: f64 = 0;
let overflowBase: f64 = 0;
let overflowDepth: f64 = 0;
let outsideWeight: f64 = 0;
let sliverWeight: f64 = 0;
let throughWeight: f64 = 0;
let crossingWeight: f64 = 0;
let fontSize: f64 = 0;
let padding: f64 = 0;
let lineHeight: f64 = 0;
let spaceEm: f64 = 0;
// USABLE by shape kind index (SHAPE_KINDS order: rectangle, ellipse, diamond, text).
let usable0: f64 = 0;
let usable1: f64 = 0;
let usable2: f64 = 0;
let usable3: f64 = 0;

/** layout.ts's LABEL_CONSTANTS, in its order: once at load. */
export function setOverflowConstants(
  tol: f64,
  base: f64,
  depth: f64,
  outside: f64,
  sliver: f64,
  through: f64,
  crossing: f64,
  font: f64,
  pad: f64,
  line: f64,
  space: f64,
  usableRectangle: f64,
  usableEllipse: f64,
  usableDiamond: f64,
  usableText: f64,
): void {
  tolerance = tol;
  overflowBase = base;
  overflowDepth = depth;
  outsideWeight = outside;
  sliverWeight = sliver;
  throughWeight = through;
  crossingWeight = crossing;
  fontSize = font;
  padding = pad;
  lineHeight = line;
  spaceEm = space;
  usable0 = usableRectangle;
  usable1 = usableEllipse;
  usable2 = usableDiamond;
  usable3 = usableText;
}

export function measureInfoBase(): usize {
  return measureInfo();
}
export function measureCountsBase(): usize {
  return measureCounts();
}
export function measureAdvancesBase(): usize {
  return measureAdvances();
}
export function measureWidestBase(): usize {
  return measureWidest();
}

/**
 * layout.ts measuredOverflow of the label measured at counts c and advances a, whose widest paragraph on one line is
 * `widest` em, in a shape of kind `kind`, w by h.
 */
@inline function overflowOf(c: usize, a: usize, widest: f64, kind: i32, w: f64, h: f64): f64 {
  const paragraphs = load<i32>(c);
  if (paragraphs == 1 && load<i32>(c, 4) == 0) return 0;
  const f = kind == 0 ? usable0 : kind == 1 ? usable1 : kind == 2 ? usable2 : usable3;
  const pad: f64 = kind == 3 ? 0 : padding;
  const availW = max(1, w * f - 2 * pad);
  const availH = max(1, h * f - 2 * pad);
  let lines = 0;
  let needW: f64 = 0;
  if (widest * fontSize <= availW) {
    // Nothing wraps (see MeasuredLabel.widest): a line per paragraph.
    lines = paragraphs;
    needW = widest * fontSize;
  } else {
    c += 4;
    for (let p = 0; p < paragraphs; p++) {
      const words = load<i32>(c);
      c += 4;
      let lineEm: f64 = 0;
      for (let k = 0; k < words; k++) {
        const chars = load<i32>(c);
        c += 4;
        let em: f64 = k == 0 ? 0 : lineEm + spaceEm;
        for (let i = 0; i < chars; i++) em += load<f64>(a + (<usize>i << 3));
        if (k > 0 && em * fontSize > availW) {
          lines++;
          needW = max(needW, lineEm * fontSize);
          em = 0;
          for (let i = 0; i < chars; i++) em += load<f64>(a + (<usize>i << 3));
        }
        lineEm = em;
        a += <usize>chars << 3;
      }
      lines++;
      needW = max(needW, lineEm * fontSize);
    }
  }
  const needH = <f64>lines * fontSize * lineHeight;
  return min(2, max(0, needW / availW - 1) + max(0, needH / availH - 1));
}

/**
 * layoutScoreFromGeometry's total penalty on the last strongCheck's canvas (at least one shape), or -1 when a label
 * was not interned or its measure not handed over (JavaScript then scores the layout).
 */
export function layoutPenalty(): f64 {
  const n = load<i32>(counts, 12);
  let overflow: f64 = 0;
  for (let s = 0; s < n; s++) {
    const id = load<i32>(shapeLabel + (<usize>s << 2));
    if (id == LABEL_ABSENT) continue;
    if (id < 0) return -1;
    const info = measureInfo() + (<usize>id << 3);
    const c = load<i32>(info);
    if (c < 0) return -1;
    const o = <usize>s << 3;
    const over = overflowOf(
      measureCounts() + (<usize>c << 2),
      measureAdvances() + (<usize>load<i32>(info, 4) << 3),
      load<f64>(measureWidest() + (<usize>id << 3)),
      load<i32>(shapeKind + (<usize>s << 2)),
      load<f64>(boxW + o),
      load<f64>(boxH + o),
    );
    if (over > tolerance) overflow += overflowBase + overflowDepth * over;
  }
  let total: f64 = 0;
  total += load<f64>(geometry);
  total += load<f64>(geometry, 8);
  total += overflow;
  total += outsideWeight * load<f64>(geometry, 16);
  total += sliverWeight * load<f64>(geometry, 24);
  total += throughWeight * load<f64>(geometry, 32);
  total += crossingWeight * load<f64>(geometry, 40);
  return total;
}
