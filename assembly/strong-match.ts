// The strong rubric's entity matching, entities_present and the structural part of edges_correct
// (src/reward/strong-values.ts matchShapes, entitiesValue, edgesValue and connectivity, which stay the definition the
// tests hold this to) on strong-check.ts's canvas, with the same float operations in the same order. Words arrive as
// atoms: strong-values.ts numbers every stem, name and canonical form it meets (one number per distinct string), so
// that strings compare as i32. Each interned label's words are handed over once per intern epoch (labelInfoBase,
// labelWordsBase), each spec name once (namesBase, nameWordsBase), and per spec its entities' and edge ends' names
// (specEntitiesBase, specEdgesBase).
import { arrowFrom, arrowTo, counts, INTERN_MAX, LABEL_ABSENT, MAX_SHAPES, shapeKind, shapeLabel } from './strong-check';

export const MATCH_FALLBACK: i32 = 0;
export const MATCH_DONE: i32 = 1;

/** Per interned label (by id): words at (index into labelWords), word count (-1: not handed over), abbreviations, stem mask, canonical form's atom. */
export const LABEL_STRIDE: i32 = 5;
export const LABEL_WORDS: i32 = 8192;
/** Labels of more words are left to JavaScript (labelMatch's record of the words it has used, beyond 32). */
export const MAX_LABEL_WORDS: i32 = 1024;
/**
 * Per spec name (an entity's or an edge end's), by the index strong-values.ts gives it: words at (index into
 * nameWords), word count, abbreviations, stem mask, canonical atom, name atom. Kept from spec to spec (names recur),
 * started over with the atoms or when full: a spec then hands over indexes only, and its names' records are read
 * here, where they lie together, instead of from JavaScript objects met cold.
 */
export const NAME_STRIDE: i32 = 8;
export const MAX_NAMES: i32 = 512;
export const NAME_WORDS: i32 = 2048;
/** Per spec entity: its name's index, the wanted kind (-1: any; 4: none of the kinds). */
export const ENTITY_STRIDE: i32 = 2;
export const MAX_ENTITIES: i32 = 64;
/** Per spec edge: its ends' name indexes. */
export const MAX_EDGES: i32 = 256;

const labelInfo = memory.data(INTERN_MAX * LABEL_STRIDE * 4, 16);
const labelWords = memory.data(LABEL_WORDS * 4, 16);
const names = memory.data(MAX_NAMES * NAME_STRIDE * 4, 16);
const nameWords = memory.data(NAME_WORDS * 4, 16);
const specEntities = memory.data(MAX_ENTITIES * ENTITY_STRIDE * 4, 16);
const specEdges = memory.data(MAX_EDGES * 8, 16);
/**
 * The matched entities' keys, the last entity first: its name's atom, then its canonical form's atom (a pair of
 * -1 pads the last block of four), and beside each pair the entity's shape. shapeNamed's search, which takes the
 * last matched entity filed under a key, becomes the first equal lane.
 */
const matchedKeys = memory.data((MAX_ENTITIES + 2) * 8, 16);
const matchedShapes = memory.data(MAX_ENTITIES * 4, 16);
/** Blocks of four keys in matchedKeys (two entities each). */
let matchedBlocks: i32 = 0;
/** The record of spec entity i's name. */
@inline function entityName(i: i32): usize {
  return names + <usize>(load<i32>(specEntities + <usize>(i * ENTITY_STRIDE * 4)) * NAME_STRIDE * 4);
}

/** The spec entities' stem masks and canonical atoms side by side, for matchShapes to test against every label. */
const entityMasks = memory.data(MAX_ENTITIES * 4, 16);
const entityCompacts = memory.data(MAX_ENTITIES * 4, 16);
/** entities_present, the edges' structure; then each entity's shape (i32, -1 when unmatched). */
const matchOut = memory.data(16 + MAX_ENTITIES * 4, 16);
const assignment = matchOut + 16;
const quality = memory.data(MAX_ENTITIES * 8, 16);
const weights = memory.data(MAX_ENTITIES * MAX_SHAPES * 8, 16);
// bestAssignment's arrays (cols = max(entities, shapes) <= MAX_ENTITIES), and the label words labelMatch has used beyond 32.
const huU = memory.data((MAX_ENTITIES + 1) * 8, 16);
const huV = memory.data((MAX_ENTITIES + 1) * 8, 16);
const huMinv = memory.data((MAX_ENTITIES + 1) * 8, 16);
const huP = memory.data((MAX_ENTITIES + 1) * 4, 16);
const huWay = memory.data((MAX_ENTITIES + 1) * 4, 16);
const huUsed = memory.data(MAX_ENTITIES + 1, 16);
const usedBeyond = memory.data(MAX_LABEL_WORDS, 16);
const useful = memory.data(MAX_SHAPES, 16);
const parent = memory.data(MAX_SHAPES * 4, 16);

let abbreviationCredit: f64 = 0;
let extraWordCost: f64 = 0;
let wrongShapeCredit: f64 = 0;

/** labels.ts's ABBREVIATION_CREDIT and EXTRA_WORD_COST, strong-values.ts's WRONG_SHAPE_CREDIT: once at load. */
export function setMatchConstants(abbreviation: f64, extraWord: f64, wrongShape: f64): void {
  abbreviationCredit = abbreviation;
  extraWordCost = extraWord;
  wrongShapeCredit = wrongShape;
}

export function labelInfoBase(): usize {
  return labelInfo;
}
export function labelWordsBase(): usize {
  return labelWords;
}
export function namesBase(): usize {
  return names;
}
export function nameWordsBase(): usize {
  return nameWords;
}
export function specEntitiesBase(): usize {
  return specEntities;
}
export function specEdgesBase(): usize {
  return specEdges;
}
export function matchOutBase(): usize {
  return matchOut;
}

/**
 * labels.ts labelMatch of an entity (its words at `ew`, `en` of them) and a label (at `lw`, `ln`): a word is its
 * stem's atom times 2, plus 1 when the text abbreviated it.
 */
function labelMatch(ew: usize, en: i32, eAbbr: i32, eMask: i32, eCompact: i32, lw: usize, ln: i32, lAbbr: i32, lMask: i32, lCompact: i32): f64 {
  if (en == 0 || ln == 0) return 0;
  if (eCompact == lCompact) return lAbbr > eAbbr ? abbreviationCredit : 1;
  if ((eMask & lMask) == 0) return 0;
  // extraAllowance: 1 for one word, else ceil(n / 2). A label longer than the entity by more than it has too many extras.
  const allowance = en <= 1 ? 1 : (en + 1) >> 1;
  if (ln - en > allowance) return 0;
  let common = 0;
  let abbreviated = false;
  let usedBits: u32 = 0;
  if (ln > 32) memory.fill(usedBeyond, 0, <usize>(ln - 32));
  for (let k = 0; k < en; k++) {
    const word = load<i32>(ew + (<usize>k << 2));
    const stem = word >> 1;
    for (let j = 0; j < ln; j++) {
      const other = load<i32>(lw + (<usize>j << 2));
      if (other >> 1 != stem) continue;
      if (j < 32) {
        if (usedBits & (<u32>1 << j)) continue;
        usedBits |= <u32>1 << j;
      } else {
        const at = usedBeyond + <usize>(j - 32);
        if (load<u8>(at)) continue;
        store<u8>(at, 1);
      }
      common++;
      if (!abbreviated) abbreviated = (other & 1) != 0 && (word & 1) == 0;
      break;
    }
  }
  if (common == 0) return 0;
  const abbreviation: f64 = abbreviated ? abbreviationCredit : 1;
  const recall = <f64>common / <f64>en;
  const extras = ln - common;
  if (extras > allowance) return 0;
  let base: f64;
  if (recall == 1) base = 1;
  else if (en >= 2 && recall >= 0.5 && extras == 0) base = 0.5 * recall;
  else return 0;
  return base * (1 - extraWordCost * <f64>extras) * abbreviation;
}

/**
 * labels.ts bestAssignment (the Hungarian method) on `weights` (n rows of m), into `assignment`: with more entities
 * than shapes, as there, the shapes are the method's rows (it wants rows <= columns).
 */
function bestAssignment(n: i32, m: i32): void {
  for (let i = 0; i < n; i++) store<i32>(assignment + (<usize>i << 2), -1);
  if (n <= m) hungarian(n, m, false);
  else hungarian(m, n, true);
}

/**
 * labels.ts hungarian on `rows` rows of `cols` >= rows columns: the entities-by-shapes table `weights`, or its
 * transpose (the shapes as rows); each assigned entity's shape into `assignment`.
 */
function hungarian(rows: i32, cols: i32, transposed: bool): void {
  const rowStride = transposed ? 1 : cols;
  const colStride = transposed ? rows : 1;
  const span = <usize>(cols + 1);
  memory.fill(huU, 0, <usize>(rows + 1) << 3);
  memory.fill(huV, 0, span << 3);
  memory.fill(huP, 0, span << 2);
  memory.fill(huWay, 0, span << 2);
  for (let i = 1; i <= rows; i++) {
    store<i32>(huP, i);
    let j0 = 0;
    for (let j = 0; j <= cols; j++) store<f64>(huMinv + (<usize>j << 3), Infinity);
    memory.fill(huUsed, 0, span);
    do {
      store<u8>(huUsed + <usize>j0, 1);
      const i0 = load<i32>(huP + (<usize>j0 << 2));
      const row = weights + (<usize>((i0 - 1) * rowStride) << 3);
      const ui0 = load<f64>(huU + (<usize>i0 << 3));
      let delta: f64 = Infinity;
      let j1 = 0;
      for (let j = 1; j <= cols; j++) {
        if (load<u8>(huUsed + <usize>j)) continue;
        const cur = -load<f64>(row + (<usize>((j - 1) * colStride) << 3)) - ui0 - load<f64>(huV + (<usize>j << 3));
        const mj = huMinv + (<usize>j << 3);
        if (cur < load<f64>(mj)) {
          store<f64>(mj, cur);
          store<i32>(huWay + (<usize>j << 2), j0);
        }
        if (load<f64>(mj) < delta) {
          delta = load<f64>(mj);
          j1 = j;
        }
      }
      for (let j = 0; j <= cols; j++) {
        if (load<u8>(huUsed + <usize>j)) {
          const up = huU + (<usize>load<i32>(huP + (<usize>j << 2)) << 3);
          store<f64>(up, load<f64>(up) + delta);
          const vj = huV + (<usize>j << 3);
          store<f64>(vj, load<f64>(vj) - delta);
        } else {
          const mj = huMinv + (<usize>j << 3);
          store<f64>(mj, load<f64>(mj) - delta);
        }
      }
      j0 = j1;
    } while (load<i32>(huP + (<usize>j0 << 2)) != 0);
    do {
      const j1 = load<i32>(huWay + (<usize>j0 << 2));
      store<i32>(huP + (<usize>j0 << 2), load<i32>(huP + (<usize>j1 << 2)));
      j0 = j1;
    } while (j0 != 0);
  }
  for (let j = 1; j <= cols; j++) {
    const r = load<i32>(huP + (<usize>j << 2)) - 1;
    if (r < 0 || !(load<f64>(weights + (<usize>(r * rowStride + (j - 1) * colStride) << 3)) > 0)) continue;
    if (transposed) store<i32>(assignment + (<usize>(j - 1) << 2), r);
    else store<i32>(assignment + (<usize>r << 2), j - 1);
  }
}

/** matchShapes: `assignment` and `quality` for the n entities; false when a label's words were not handed over. */
function matchShapes(n: i32, m: i32): bool {
  memory.fill(weights, 0, <usize>(n * m) << 3);
  for (let i = 0; i < n; i++) {
    store<i32>(assignment + (<usize>i << 2), -1);
    const e = entityName(i);
    store<i32>(entityMasks + (<usize>i << 2), load<i32>(e, 12));
    store<i32>(entityCompacts + (<usize>i << 2), load<i32>(e, 16));
  }
  let contested = false;
  for (let j = 0; j < m; j++) {
    const id = load<i32>(shapeLabel + (<usize>j << 2));
    // An absent label has no words: labelMatch answers 0.
    if (id == LABEL_ABSENT) continue;
    if (id < 0) return false;
    const info = labelInfo + <usize>(id * LABEL_STRIDE * 4);
    const ln = load<i32>(info, 4);
    if (ln < 0 || ln > MAX_LABEL_WORDS) return false;
    const lw = labelWords + (<usize>load<i32>(info) << 2);
    const lAbbr = load<i32>(info, 8);
    const lMask = load<i32>(info, 12);
    const lCompact = load<i32>(info, 16);
    // The entities that share a stem or the canonical form with the label, as bits, found without a branch per
    // entity (which ones do changes from label to label): labelMatch answers 0 for the others.
    let candidates: u64 = 0;
    for (let i = 0; i < n; i++) {
      const shares = <i32>((load<i32>(entityMasks + (<usize>i << 2)) & lMask) != 0) | <i32>(load<i32>(entityCompacts + (<usize>i << 2)) == lCompact);
      candidates |= <u64>shares << <u64>i;
    }
    let owner = -1;
    while (candidates != 0) {
      const i = <i32>ctz(candidates);
      candidates &= candidates - 1;
      const e = entityName(i);
      const w = labelMatch(nameWords + (<usize>load<i32>(e) << 2), load<i32>(e, 4), load<i32>(e, 8), load<i32>(e, 12), load<i32>(e, 16), lw, ln, lAbbr, lMask, lCompact);
      store<f64>(weights + (<usize>(i * m + j) << 3), w);
      if (!(w > 0)) continue;
      const a = assignment + (<usize>i << 2);
      if (owner != -1 || load<i32>(a) != -1) contested = true;
      owner = i;
      store<i32>(a, j);
    }
  }
  if (contested) bestAssignment(n, m);
  for (let i = 0; i < n; i++) {
    const s = load<i32>(assignment + (<usize>i << 2));
    store<f64>(quality + (<usize>i << 3), s == -1 ? 0 : load<f64>(weights + (<usize>(i * m + s) << 3)));
  }
  return true;
}

/** entitiesValue, after matchShapes. */
function entitiesValue(n: i32, m: i32): f64 {
  let matched = 0;
  let recall: f64 = 0;
  for (let i = 0; i < n; i++) {
    const s = load<i32>(assignment + (<usize>i << 2));
    if (s != -1) matched++;
    const wanted = load<i32>(specEntities + <usize>(i * ENTITY_STRIDE * 4), 4);
    const kindFactor: f64 = s != -1 && wanted != -1 && load<i32>(shapeKind + (<usize>s << 2)) != wanted ? wrongShapeCredit : 1;
    recall += load<f64>(quality + (<usize>i << 3)) * kindFactor;
  }
  recall /= <f64>n;
  const allowance = 1 + n / 3;
  let excess = m - matched - allowance;
  if (excess < 0) excess = 0;
  return (recall * <f64>n) / <f64>(n + excess);
}

/** Files the matched entities' keys (matchedKeys), after matchShapes. */
function fileMatched(n: i32): void {
  let c = 0;
  for (let i = n - 1; i >= 0; i--) {
    const s = load<i32>(assignment + (<usize>i << 2));
    if (s == -1) continue;
    const e = entityName(i);
    const at = matchedKeys + (<usize>c << 3);
    store<i32>(at, load<i32>(e, 20));
    store<i32>(at, load<i32>(e, 16), 4);
    store<i32>(matchedShapes + (<usize>c << 2), s);
    c++;
  }
  store<i64>(matchedKeys + (<usize>c << 3), -1);
  matchedBlocks = (c + 1) >> 1;
}

/** The shape of the last matched entity whose name or canonical form is `key` (an atom), or -1. */
@inline function lastMatched(key: i32): i32 {
  const k = i32x4.splat(key);
  for (let b = 0; b < matchedBlocks; b++) {
    const equal = i32x4.bitmask(i32x4.eq(v128.load(matchedKeys + (<usize>b << 4)), k));
    if (equal != 0) return load<i32>(matchedShapes + (<usize>((b << 1) + (ctz(equal) >> 1)) << 2));
  }
  return -1;
}

/** shapeNamed: a spec name (its index) resolves as written, then canonically. */
@inline function shapeNamed(index: i32): i32 {
  const r = names + <usize>(index * NAME_STRIDE * 4);
  const s = lastMatched(load<i32>(r, 20));
  return s != -1 ? s : lastMatched(load<i32>(r, 16));
}

/** The first of the canvas's `arrows` arrows from shape a to shape b, or -1: four arrows to a compare. */
@inline function arrowBetween(a: i32, b: i32, arrows: i32): i32 {
  const from = i32x4.splat(a);
  const to = i32x4.splat(b);
  for (let k = 0; k < arrows; k += 4) {
    const at = <usize>k << 2;
    let hits = i32x4.bitmask(v128.and(i32x4.eq(v128.load(arrowFrom + at), from), i32x4.eq(v128.load(arrowTo + at), to)));
    // Lanes past the last arrow hold an earlier canvas's ends.
    if (arrows - k < 4) hits &= (1 << (arrows - k)) - 1;
    if (hits != 0) return k + ctz(hits);
  }
  return -1;
}

/** Union-find root. */
function rootOf(s: i32): i32 {
  let r = s;
  while (load<i32>(parent + (<usize>r << 2)) != r) r = load<i32>(parent + (<usize>r << 2));
  return r;
}

/** connectivity: how far the arrows join the matched entities' shapes into one piece. */
function connectivity(n: i32, m: i32, arrows: i32): f64 {
  for (let s = 0; s < m; s++) store<i32>(parent + (<usize>s << 2), -1);
  let nodes = 0;
  for (let i = 0; i < n; i++) {
    const s = load<i32>(assignment + (<usize>i << 2));
    if (s == -1) continue;
    store<i32>(parent + (<usize>s << 2), s);
    nodes++;
  }
  if (nodes < 2 || arrows == 0) return 0;
  let components = nodes;
  let inside = 0;
  for (let k = 0; k < arrows; k++) {
    const a = load<i32>(arrowFrom + (<usize>k << 2));
    const b = load<i32>(arrowTo + (<usize>k << 2));
    if (load<i32>(parent + (<usize>a << 2)) == -1 || load<i32>(parent + (<usize>b << 2)) == -1) continue;
    inside++;
    const ra = rootOf(a);
    const rb = rootOf(b);
    if (ra != rb) {
      store<i32>(parent + (<usize>ra << 2), rb);
      components--;
    }
  }
  const connected = <f64>(nodes - components) / <f64>(nodes - 1);
  const budget = 1.5 * <f64>(nodes - 1);
  const spread = budget / <f64>arrows;
  return connected * (spread < 1 ? spread : 1) * (<f64>inside / <f64>arrows);
}

/** The edges' structure (edgesValue before arrow labels), after matchShapes. */
function edgesStructure(n: i32, edges: i32, fromInput: bool, m: i32, arrows: i32): f64 {
  if (edges > 0) {
    fileMatched(n);
    memory.fill(useful, 0, <usize>arrows);
    let correct = 0;
    let usefulCount = 0;
    for (let e = 0; e < edges; e++) {
      const a = shapeNamed(load<i32>(specEdges + (<usize>e << 3)));
      const b = shapeNamed(load<i32>(specEdges + (<usize>e << 3), 4));
      if (a == -1 || b == -1) continue;
      const fwd = arrowBetween(a, b, arrows);
      if (fwd == -1) continue;
      correct++;
      if (!load<u8>(useful + <usize>fwd)) {
        store<u8>(useful + <usize>fwd, 1);
        usefulCount++;
      }
    }
    const recall = <f64>correct / <f64>edges;
    const precision: f64 = arrows ? <f64>usefulCount / <f64>arrows : 0;
    return recall * precision;
  }
  if (fromInput) return 1 / <f64>(1 + arrows);
  return connectivity(n, m, arrows);
}

/**
 * entities_present and the edges' structure of strong-check.ts's last canvas (at least one shape) against the spec
 * handed over (n entities, 1 to MAX_ENTITIES; `edges` edges), into matchOutBase() (then each entity's shape).
 * MATCH_FALLBACK when a shape's label was not interned or its words not handed over.
 */
export function strongMatch(n: i32, edges: i32, fromInput: i32): i32 {
  const m = load<i32>(counts, 12);
  const arrows = load<i32>(counts, 16);
  if (!matchShapes(n, m)) return MATCH_FALLBACK;
  store<f64>(matchOut, entitiesValue(n, m));
  store<f64>(matchOut, edgesStructure(n, edges, fromInput != 0, m, arrows), 8);
  return MATCH_DONE;
}
