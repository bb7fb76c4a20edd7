// Whether a spec someone else wrote (a model) is a spec of the request: every entity a span of it or a close
// paraphrase (its words all in the request, a plural's singular and a count's numbers allowed), every edge between two
// of its entities. An answer that names things the request never mentions is a model's invention, not the task.
import type { DiagramSpec } from '../tasks/spec.ts';

/** Lower case, spaces collapsed, without a leading article. */
const normal = (s: string) =>
  s
    .trim()
    .replace(/\s+/g, ' ')
    .replace(/^(?:the|a|an)\s+/i, '')
    .toLowerCase();

const words = (s: string) => s.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

/** A word and its forms a request may write it in: "consumer" for "consumers", "process" for "processes". */
const forms = (w: string) => [w, w.replace(/es$/, ''), w.replace(/s$/, ''), w.replace(/ies$/, 'y')];

/** Whether `entity` is in `prompt`: as a whole-word span, or every word of it there in some form (numbers free: a
 *  counted plural's "consumer 2"). */
export function inPrompt(prompt: string, entity: string): boolean {
  const p = ` ${words(prompt).join(' ')} `;
  const e = words(entity);
  if (e.length === 0) return false;
  if (p.includes(` ${e.join(' ')} `)) return true;
  const have = new Set(words(prompt).flatMap(forms));
  return e.every((w) => /^\d+$/.test(w) || forms(w).some((f) => have.has(f)));
}

/** The entities and edges as a spec of `prompt`, duplicates dropped and edge ends spelled as their entities; or what
 *  makes them not one. */
export function groundedSpec(
  prompt: string,
  entities: readonly string[],
  edges: readonly (readonly [string, string] | readonly [string, string, string])[],
): Pick<DiagramSpec, 'entities' | 'edges' | 'edgeLabels'> | { error: string } {
  const byKey = new Map<string, string>();
  for (const raw of entities) {
    const key = normal(raw);
    if (!key) return { error: 'an entity is empty' };
    if (!inPrompt(prompt, key)) return { error: `entity ${JSON.stringify(raw)} is not in the request` };
    if (!byKey.has(key)) byKey.set(key, raw.trim().replace(/\s+/g, ' ').replace(/^(?:the|a|an)\s+/i, ''));
  }
  if (byKey.size === 0) return { error: 'no entities' };
  const out: [string, string][] = [];
  const labels: Record<string, string> = {};
  const seen = new Set<string>();
  for (const [from, to, label] of edges) {
    const [f, t] = [byKey.get(normal(from)), byKey.get(normal(to))];
    if (f === undefined) return { error: `edge end ${JSON.stringify(from)} is not one of the entities` };
    if (t === undefined) return { error: `edge end ${JSON.stringify(to)} is not one of the entities` };
    if (f === t) return { error: `edge ${JSON.stringify(from)} -> itself` };
    const k = `${f}\u0000${t}`;
    if (!seen.has(k)) out.push([f, t]);
    seen.add(k);
    if (label?.trim()) labels[`${f}->${t}`] = label.trim();
  }
  return { entities: [...byKey.values()], edges: out, ...(Object.keys(labels).length ? { edgeLabels: labels } : {}) };
}
