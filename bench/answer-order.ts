// Teacher answers rewritten into another order of the same actions, for the benches that train or read students on
// them (bench/variants.ts).

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
