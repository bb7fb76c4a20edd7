// Teacher answers rewritten into other forms of the same actions, for the benches that train or read students on them
// (bench/variants.ts). An answer the teacher wrapped in prose is rewritten inside its wrapping.
import { letterShapes, wordIndex } from '../src/diagram/teacher/walk.ts';

type Action = { type?: string; say?: string; id?: string; from?: string; to?: string; text?: string };

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
