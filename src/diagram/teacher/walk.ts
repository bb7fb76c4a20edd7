// The walked answer, written for a student to copy rather than to choose:
// - the request walk: each shape states the words of the request from where the previous shape's name ended through
//   its own name (`say`, which nothing reads: actions.ts). The shapes come in the order the request first names them,
//   so the says laid end to end are the request up to its last name, in order;
// - shapes are lettered in the order they are drawn ("A", "B", ...), the names staying in their text, and each arrow
//   names its target before its source.
// Why: teacher-forced after a short SFT (bench/decisions.ts, docs/sft.md), a student picks a new shape's name 62%
// right when it must choose among the request's names, because after `"id":"` its copying heads see every earlier id
// as a match; with the say, the name is the continuation of the request it has just copied (93%). An arrow's source
// is worse, 51%: after `"from":"` the same heads repeat the last arrow's source, and the right one is a multi-token
// name to find again among the answer's. Lettered, an arrow's target is mostly the letter just written and its
// source a letter related to it (the one before, the last arrow's source, ...), which the student picks 82% right.

/** Where `name` next stands in `text` as whole words at or after `from` (both lower-cased), or -1. */
export function wordIndex(text: string, name: string, from: number): number {
  const word = /[\p{L}\p{N}]/u;
  for (let i = text.indexOf(name, from); i !== -1; i = text.indexOf(name, i + 1)) {
    if (!word.test(text[i - 1] ?? ' ') && !word.test(text[i + name.length] ?? ' ')) return i;
  }
  return -1;
}

/**
 * The actions with a `say` on each create_shape, placed right after `type` (so that it is written before the id),
 * `nameOf` giving the name the request spells for a shape. A shape whose name the request does not spell out from the
 * point the walk has reached (an abbreviated label, a name used before its turn) says "" and leaves the walk where it
 * was. Other actions are returned as they are.
 */
export function walkRequest<A extends { type: string }>(actions: A[], prompt: string, nameOf: (a: A) => string | undefined): A[] {
  const lower = prompt.toLowerCase();
  let cursor = 0;
  return actions.map((a) => {
    if (a.type !== 'create_shape') return a;
    const name = nameOf(a)?.toLowerCase() ?? '';
    const at = name ? wordIndex(lower, name, cursor) : -1;
    let say = '';
    if (at >= 0) {
      say = prompt.slice(cursor, at + name.length);
      cursor = at + name.length;
    }
    const { type, ...rest } = a;
    return { type, say, ...rest } as unknown as A;
  });
}

/** A shape's letter by its place in drawing order: A to Z, then AA, AB, ... One token each, where the tokenizer splits
 *  some numbers (12 is "1", "2"; teacher-forced, an arrow's source 78% right numbered, 82% lettered). */
function shapeLetter(k: number): string {
  return k < 26 ? String.fromCharCode(65 + k) : shapeLetter(Math.floor(k / 26) - 1) + shapeLetter(k % 26);
}

/** The actions with each shape's id replaced by its letter in drawing order and each arrow written as type, to, from,
 *  then its label. */
export function letterShapes<A extends { type: string }>(actions: A[]): A[] {
  const ids = new Map<string, string>();
  for (const a of actions) {
    const id = (a as { id?: unknown }).id;
    if (a.type === 'create_shape' && typeof id === 'string' && !ids.has(id)) ids.set(id, shapeLetter(ids.size));
  }
  const letter = (id: unknown) => (typeof id === 'string' ? (ids.get(id) ?? id) : id);
  return actions.map((a) => {
    if (a.type === 'create_shape') return { ...a, id: letter((a as { id?: unknown }).id) };
    if (a.type !== 'connect') return a;
    const { type, from, to, ...rest } = a as unknown as { type: string; from: unknown; to: unknown };
    return { type, to: letter(to), from: letter(from), ...rest } as unknown as A;
  });
}

/** Columns of the walked answer's grid, and its pitch: room for the widest label the teacher usually draws (about
 *  340), wider where an answer holds a wider shape. */
const GRID_COLUMNS = 3;
const COLUMN_PITCH = 400;
const COLUMN_GAP = 60;
const ROW_PITCH = 160;

/** The shapes placed on a grid in drawing order, three to a row: coordinates that depend only on how many shapes came
 *  before. A graph layout's coordinates state the diagram's structure before its arrows do, so a student that must
 *  write them first commits to a structure (a chain laid out as a fan-out) that its arrows then follow. */
export function gridPlaces<A extends { type: string }>(actions: A[]): A[] {
  const widest = Math.max(0, ...actions.map((a) => (a.type === 'create_shape' ? Number((a as { w?: unknown }).w) || 0 : 0)));
  const pitch = Math.max(COLUMN_PITCH, widest + COLUMN_GAP);
  let k = 0;
  return actions.map((a) => {
    if (a.type !== 'create_shape') return a;
    const at = k++;
    return { ...a, x: 40 + pitch * (at % GRID_COLUMNS), y: 40 + ROW_PITCH * Math.floor(at / GRID_COLUMNS) };
  });
}
