// Teacher answers rewritten into another order of the same actions, for the benches that train or read students on
// them (bench/learning.ts's `shapesfirst` variant, bench/decisions.ts --order shapes-first).

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

interface Action {
  type?: string;
  id?: string;
  text?: string;
  [key: string]: unknown;
}

/**
 * The request walked in order: each shape states, in a `say` field before its id, the words of the request between
 * the previous shape's name and its own, as the request writes them. The id that follows is then the continuation of
 * what was just quoted, and the quote itself continues where the previous name ended, so every new name is a copy
 * forward along the request rather than a choice among its names. A shape whose name the request does not spell out,
 * or names before the point the walk has reached, says "". Prose-wrapped answers are left as they are.
 */
export function requestWalk(text: string, prompt: string): string {
  let value: { actions?: Action[] };
  try {
    value = JSON.parse(text);
  } catch {
    return text;
  }
  let cursor = 0;
  const lower = prompt.toLowerCase();
  const actions = (value.actions ?? []).map((a) => {
    if (a.type !== 'create_shape') return a;
    const name = String(a.text ?? a.id ?? '');
    const at = name ? firstWordMatch(lower, name.toLowerCase(), cursor) : -1;
    let say = '';
    if (at >= 0) {
      say = prompt.slice(cursor, at);
      cursor = at + name.length;
    }
    const { type, ...rest } = a;
    return { type, say, ...rest };
  });
  return JSON.stringify({ actions });
}

/** The first index >= from where `name` stands in `text` as whole words, or -1. */
function firstWordMatch(text: string, name: string, from: number): number {
  const word = /[\p{L}\p{N}]/u;
  for (let i = text.indexOf(name, from); i !== -1; i = text.indexOf(name, i + 1)) {
    if (!word.test(text[i - 1] ?? ' ') && !word.test(text[i + name.length] ?? ' ')) return i;
  }
  return -1;
}
