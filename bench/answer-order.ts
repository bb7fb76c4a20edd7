// Teacher answers rewritten into other forms of the same actions, for the benches that train or read students on them
// (bench/variants.ts). An answer the teacher wrapped in prose is rewritten inside its wrapping.
import { letterShapes, wordIndex } from '../src/diagram/teacher/walk.ts';

type Action = { type?: string; say?: string; then?: string; id?: string; from?: string; to?: string; text?: string };

/** The answer with its action list replaced by `change`'s: the JSON found where the teacher put it (the whole text, or
 *  from the first `{` to the last `}` when prose wraps it). */
function rewrite(text: string, change: (actions: Action[]) => Action[]): string {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start < 0 || end < start) return text;
  let actions: Action[];
  try {
    actions = (JSON.parse(text.slice(start, end + 1)) as { actions: Action[] }).actions;
  } catch {
    return text;
  }
  return text.slice(0, start) + JSON.stringify({ actions: change(actions) }) + text.slice(end + 1);
}

/** Every shape first, in the teacher's order, then every arrow in the teacher's order: the arrows become a copy of the
 *  request's edge list, with no shape between them. */
export const shapesFirst = (text: string) => rewrite(text, (as) => [...as.filter((a) => a.type === 'create_shape'), ...as.filter((a) => a.type !== 'create_shape')]);

const arrowFirst = (a: Action, first: 'from' | 'to'): Action => {
  const ends = first === 'from' ? { from: a.from, to: a.to } : { to: a.to, from: a.from };
  return { type: a.type, ...ends, ...(a.text === undefined ? {} : { text: a.text }) };
};

/** Each arrow names its target before its source. */
export const targetFirst = (text: string) => rewrite(text, (as) => as.map((a) => (a.type === 'connect' ? arrowFirst(a, 'to') : a)));

/** Each arrow names its source before its target (the numbers of a walked answer stay). */
export const sourceFirst = (text: string) => rewrite(text, (as) => as.map((a) => (a.type === 'connect' ? arrowFirst(a, 'from') : a)));

/** A walked answer's shapes named again: each id is the shape's text, as the plain teacher writes them, and each arrow
 *  names its source first (the says stay). */
export const namedIds = (text: string) =>
  rewrite(text, (as) => {
    const name = new Map(as.filter((a) => a.type === 'create_shape' && a.id).map((a) => [a.id!, a.text ?? a.id!]));
    const named = (v: string | undefined) => (v === undefined ? v : (name.get(v) ?? v));
    return as.map((a) => (a.type === 'create_shape' ? { ...a, id: named(a.id) } : a.type === 'connect' ? arrowFirst({ ...a, from: named(a.from), to: named(a.to) }, 'from') : a));
  });

/** A plain answer lettered as a walked one is (shapes in the order drawn, arrows target first), without says. */
export const lettered = (text: string) => rewrite(text, (as) => letterShapes(as as { type: string }[]));

/** A walked answer with its shapes numbered 1, 2, ... instead of lettered (the tokenizer splits some numbers). */
export const numberedIds = (text: string) =>
  rewrite(text, (as) => {
    const number = new Map(as.filter((a) => a.type === 'create_shape' && a.id).map((a, k) => [a.id!, String(k + 1)]));
    const id = (v: string | undefined) => (v === undefined ? v : (number.get(v) ?? v));
    return as.map((a) => (a.type === 'create_shape' ? { ...a, id: id(a.id) } : a.type === 'connect' ? { ...a, to: id(a.to), from: id(a.from) } : a));
  });

/**
 * The request walk carried on through the arrows (on an answer with names as ids): each arrow also says the request's
 * words from where the walk stands through the next mention of one of its ends, when no other shape's name comes
 * first, so an arrow between shapes drawn earlier ("- Kixcan to Haiwaipen") names its far end in its own say. Shapes'
 * says are walked again from the new positions.
 */
export const arrowSays = (text: string, prompt: string) =>
  rewrite(text, (actions) => {
    const lower = prompt.toLowerCase();
    const names = actions.filter((a) => a.type === 'create_shape' && a.id).map((a) => a.id!.toLowerCase());
    let cursor = 0;
    const next = (name: string) => {
      const at = wordIndex(lower, name, cursor);
      return at < 0 ? Infinity : at;
    };
    return actions.map((a) => {
      const { type, say: _say, ...rest } = a;
      let end = -1;
      if (type === 'create_shape' && a.id && next(a.id.toLowerCase()) < Infinity) end = next(a.id.toLowerCase()) + a.id.length;
      if (type === 'connect' && a.from && a.to) {
        const ends = [a.from.toLowerCase(), a.to.toLowerCase()];
        const at = Math.min(...ends.map(next));
        const other = Math.min(...names.filter((n) => !ends.includes(n)).map(next));
        const name = ends.find((n) => next(n) === at);
        if (name && at < Infinity && at <= other) end = at + name.length;
      }
      const say = end >= 0 ? prompt.slice(cursor, end) : '';
      if (end >= 0) cursor = end;
      return { type, say, ...rest };
    });
  });


/** Every shape of the answer on one row in drawing order, 200 apart: coordinates that say nothing of the graph. */
export const rowLayout = (text: string) =>
  rewrite(text, (as) => {
    let k = 0;
    return as.map((a) => (a.type === 'create_shape' ? { ...a, x: 40 + 200 * k++, y: 40 } : a));
  });

/** A shape that states its text before its id, so that its letter follows its name (an induction step away). */
const textBeforeId = ({ type, say, text: label, id, ...rest }: Action): Action => ({ type, ...(say === undefined ? {} : { say }), text: label, id, ...rest });

/** An arrow saying `say`, then the letter of the end its say ended with (`last`), then the other. */
const sayingArrow = ({ type, to, from, text: label }: Action, say: string, last: 'from' | 'to' | undefined): Action => ({
  type,
  say,
  ...(last === 'to' ? { to, from } : { from, to }),
  ...(label === undefined ? {} : { text: label }),
});

/** Each shape's id to its text in lower case, as the request is searched. */
const lowerNames = (as: Action[]) => new Map(as.filter((a) => a.type === 'create_shape' && a.id).map((a) => [a.id!, (a.text ?? '').toLowerCase()]));

/**
 * On a walked answer: each arrow says its source's name (the shape's text) between its target and its source, and each
 * shape states its text before its id. The source is then two copies: the name from the request's statement of the
 * edge, and the letter that follows that name where its shape was drawn (an induction step), instead of a lookup
 * from the request's pairs to letters in one token.
 */
export const sourceSays = (text: string) =>
  rewrite(text, (as) => {
    const name = new Map(as.filter((a) => a.type === 'create_shape' && a.id).map((a) => [a.id!, a.text ?? '']));
    return as.map((a) => {
      if (a.type === 'create_shape') return textBeforeId(a);
      if (a.type === 'connect' && a.from && name.has(a.from)) {
        const { type, to, from, text: label } = a;
        return { type, to, say: name.get(from), from, ...(label === undefined ? {} : { text: label }) };
      }
      return a;
    });
  });

/** Every whole-word mention of `name` in `text` (lower case both) that is not the tail of a hyphenated word (a title
 *  such as "red-green-dispatch loop" names no shape). */
function mentions(text: string, name: string): number[] {
  const at: number[] = [];
  for (let i = wordIndex(text, name, 0); i !== -1; i = wordIndex(text, name, i + 1)) if (!/\w-$/.test(text.slice(Math.max(0, i - 2), i))) at.push(i);
  return at;
}

/** Whether the words between two names can join them: a word or an arrow, not only punctuation, "and" or "or" (a
 *  list). */
const joins = (between: string) => /->|→|\p{L}{2,}/u.test(between.replace(/\b(?:and|or)\b/g, ''));

/** Where the request states the edge `from` -> `to`: the closest pair of mentions of its ends with no other name
 *  between them, and more between them than a list's comma or "and" (the list of entities names two shapes side by
 *  side without joining them); where the statement ends, and which end it ends with. */
function statement(lower: string, name: Map<string, string>, from: string, to: string): { mid: number; end: number; last: 'from' | 'to' } | undefined {
  const [f, t] = [name.get(from)!, name.get(to)!];
  const others = [...name.values()].filter((n) => n !== f && n !== t);
  let best: { span: number; mid: number; end: number; last: 'from' | 'to' } | undefined;
  for (const i of mentions(lower, f)) {
    for (const j of mentions(lower, t)) {
      const [lo, hi] = i < j ? [i + f.length, j] : [j + t.length, i];
      const between = lower.slice(lo, hi);
      if (!joins(between) || others.some((n) => wordIndex(between, n, 0) >= 0)) continue;
      const span = Math.abs(i - j);
      const end = Math.max(i + f.length, j + t.length);
      if (!best || span < best.span) best = { span, mid: Math.min(i + f.length, j + t.length), end, last: i + f.length === end ? 'from' : 'to' };
    }
  }
  return best;
}

/**
 * On a walked answer: the walk goes on through the edges. Each arrow is placed where the request states it
 * (`statement`), actions are drawn in the order the request ends their statements, and each says the request's words
 * from where the walk stands through its statement; an arrow then names the end its say ended with first (its letter
 * follows that name, as a shape's id follows its text) and the other end second. Shapes state their text before
 * their id.
 */
export const edgeWalk = (text: string, prompt: string) =>
  rewrite(text, (as) => {
    const lower = prompt.toLowerCase();
    const name = lowerNames(as);
    const placed = as.map((a, order) => {
      if (a.type === 'create_shape') {
        const at = wordIndex(lower, name.get(a.id!) ?? '', 0);
        return { a, order, end: at < 0 ? -1 : at + (name.get(a.id!) ?? '').length, last: undefined as 'from' | 'to' | undefined };
      }
      if (a.type === 'connect' && a.from && a.to && name.get(a.from) && name.get(a.to)) {
        const best = statement(lower, name, a.from, a.to);
        return { a, order, end: best ? best.end : -1, last: best?.last };
      }
      return { a, order, end: -1, last: undefined };
    });
    // Unplaced actions keep their place after the one before them; a shape goes before arrows that end where it does.
    let carry = 0;
    for (const p of placed) {
      if (p.end < 0) p.end = carry;
      else carry = p.end;
    }
    const drawn = new Set<string>();
    const ordered = [...placed].sort((x, y) => x.end - y.end || (x.a.type === 'create_shape' ? 0 : 1) - (y.a.type === 'create_shape' ? 0 : 1) || x.order - y.order);
    // An arrow sorted before one of its shapes (a name the request spells otherwise) goes back to after it.
    const out: typeof placed = [];
    const waiting: typeof placed = [];
    for (const p of ordered) {
      if (p.a.type === 'connect' && !(drawn.has(p.a.from!) && drawn.has(p.a.to!))) {
        waiting.push(p);
        continue;
      }
      out.push(p);
      if (p.a.type === 'create_shape' && p.a.id) drawn.add(p.a.id);
      for (let k = 0; k < waiting.length; k++) {
        const w = waiting[k];
        if (drawn.has(w.a.from!) && drawn.has(w.a.to!)) {
          out.push(w);
          waiting.splice(k--, 1);
        }
      }
    }
    out.push(...waiting);
    let cursor = 0;
    return out.map(({ a, end, last }) => {
      const say = end > cursor ? prompt.slice(cursor, end) : '';
      cursor = Math.max(cursor, end);
      if (a.type === 'create_shape') return textBeforeId({ ...a, say });
      return a.type === 'connect' ? sayingArrow(a, say, last) : a;
    });
  });

/** The arrows in the order the request ends their statements (`statement`), those not found last; and each shape's
 *  name in lower case. */
function byStatement(as: Action[], prompt: string) {
  const lower = prompt.toLowerCase();
  const name = lowerNames(as);
  const arrows = as
    .filter((a) => a.type === 'connect')
    .map((a, order) => ({ a, order, at: a.from && a.to && name.get(a.from) && name.get(a.to) ? statement(lower, name, a.from, a.to) : undefined }))
    .sort((x, y) => (x.at?.end ?? Infinity) - (y.at?.end ?? Infinity) || x.order - y.order);
  return { name, arrows };
}

/**
 * On a walked answer: every shape first, as walked, then a second walk through the request for the edges, from its
 * start: arrows in the order the request states them, each saying the request's words from the last statement
 * through its own, then the letter of the end it ended with, then the other. An arrow whose statement is not found
 * goes last, with an empty say. Shapes state their text before their id.
 */
export const edgeList = (text: string, prompt: string) =>
  rewrite(text, (as) => {
    const { arrows } = byStatement(as, prompt);
    let cursor = 0;
    return [
      ...as.filter((a) => a.type === 'create_shape').map(textBeforeId),
      ...arrows.map(({ a, at }) => {
        const say = at && at.end > cursor ? prompt.slice(cursor, at.end) : '';
        if (at) cursor = Math.max(cursor, at.end);
        return sayingArrow(a, say, at?.last);
      }),
    ];
  });

/**
 * edgeList with each arrow's say cut in two at its statement's first name: the words through the first end, that
 * end's letter, the words on through the second end (`then`), its letter. Each letter then follows its name, and each
 * say goes on from where the one before stopped: the arrow is forward copies only.
 */
export const edgeSplit = (text: string, prompt: string) =>
  rewrite(text, (as) => {
    const { name, arrows } = byStatement(as, prompt);
    let cursor = 0;
    return [
      ...as.filter((a) => a.type === 'create_shape').map(textBeforeId),
      ...arrows.map(({ a, at }) => {
        if (!at) return sayingArrow(a, '', undefined);
        const first = at.last === 'to' ? 'from' : 'to';
        // A statement that begins where the last one ended ("A to B to C") says its first end's name again, so that
        // every letter follows its name.
        const say = prompt.slice(at.mid > cursor ? cursor : at.mid - (at.last === 'to' ? name.get(a.from!)! : name.get(a.to!)!).length, at.mid);
        const then = prompt.slice(Math.max(cursor, at.mid), at.end);
        cursor = Math.max(cursor, at.end);
        const { type, text: label } = a;
        return { type, say, [first]: a[first], then, [at.last]: a[at.last], ...(label === undefined ? {} : { text: label }) } as Action;
      }),
    ];
  });
