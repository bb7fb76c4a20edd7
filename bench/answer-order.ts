// Teacher answers rewritten into another order of the same actions, for the benches that train or read students on
// them (bench/variants.ts).
import { wordIndex } from '../src/diagram/teacher/walk.ts';

/** Every shape first, in the teacher's order, then every arrow in the teacher's order: the arrows become a copy of the
 *  request's edge list, with no shape between them. Prose-wrapped answers keep the teacher's order. */
export function shapesFirst(text: string): string {
  let value: { actions?: { type?: string }[] };
  try {
    value = JSON.parse(text);
  } catch {
    return text;
  }
  const actions = value.actions ?? [];
  return JSON.stringify({ actions: [...actions.filter((a) => a.type === 'create_shape'), ...actions.filter((a) => a.type !== 'create_shape')] });
}

type Action = { type?: string; say?: string; id?: string; from?: string; to?: string; text?: string };
const parsed = (text: string): Action[] | undefined => {
  try {
    return (JSON.parse(text) as { actions?: Action[] }).actions;
  } catch {
    return undefined;
  }
};

/** Arrows name their target before their source: the target is the local choice (mostly the shape just drawn), and the
 *  source is then chosen knowing it. */
export function targetFirst(text: string): string {
  const actions = parsed(text);
  if (!actions) return text;
  return JSON.stringify({ actions: actions.map((a) => (a.type === 'connect' ? { type: a.type, to: a.to, from: a.from, ...(a.text === undefined ? {} : { text: a.text }) } : a)) });
}

/**
 * The request walk carried on through the arrows (on a walked answer): each arrow also says the request's words from
 * where the walk stands through the next mention of one of its ends, when no other shape's name comes first, so an
 * arrow between shapes drawn earlier ("- Kixcan to Haiwaipen") names its far end in its own say. Shapes' says are
 * walked again from the new positions.
 */
export function arrowSays(text: string, prompt: string): string {
  const actions = parsed(text);
  if (!actions) return text;
  const lower = prompt.toLowerCase();
  const names = actions.filter((a) => a.type === 'create_shape' && a.id).map((a) => a.id!.toLowerCase());
  let cursor = 0;
  const next = (name: string) => {
    const at = wordIndex(lower, name, cursor);
    return at < 0 ? Infinity : at;
  };
  return JSON.stringify({
    actions: actions.map((a) => {
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
    }),
  });
}

/** Shapes take their ordinal as id ("1", "2", ... in the order they are drawn) and arrows name those: an arrow's ends
 *  become small numbers related to the shape just drawn (its predecessor, the last arrow's source, ...), not names to
 *  find again among the answer's. The name stays in the shape's text (and say). */
export function numberedIds(text: string): string {
  const actions = parsed(text);
  if (!actions) return text;
  const ids = new Map<string, string>();
  for (const a of actions) if (a.type === 'create_shape' && a.id && !ids.has(a.id)) ids.set(a.id, String(ids.size + 1));
  const id = (v: string | undefined) => (v === undefined ? v : (ids.get(v) ?? v));
  return JSON.stringify({ actions: actions.map((a) => (a.type === 'create_shape' ? { ...a, id: id(a.id) } : a.type === 'connect' ? { ...a, from: id(a.from), to: id(a.to) } : a)) });
}
