// Whether a spec someone else wrote (a model) is a spec of the request: every entity a span of it or a close
// paraphrase (its words all in the request, a plural's singular and a count's numbers allowed), every edge between two
// of its entities. An answer that names things the request never mentions is a model's invention, not the task.
import { stem } from '../reward/labels.ts';
import type { DiagramSpec } from '../tasks/spec.ts';
import { normalizeName } from '../tasks/extraction-metrics.ts';

/** A name as written, without a leading article and with its spaces collapsed. */
const tidy = (s: string) => s.trim().replace(/\s+/g, ' ').replace(/^(?:the|an?)\s+/i, '');
/** Two names are one where the extraction's figures count them one: case, punctuation and a plural aside. */
export const nameKey = (s: string) => normalizeName(tidy(s)).split(' ').map(stem).join(' ');

/** Whether `entity` is in `prompt`: as a whole-word span, or every word of it there up to a plural, with at least one
 *  word that is not a number (a counted plural's "consumer 2" for "three consumers"). */
export function inPrompt(prompt: string, entity: string): boolean {
  const p = ` ${normalizeName(prompt)} `;
  const e = normalizeName(entity);
  if (!e || /^[\d ]+$/.test(e)) return false;
  if (p.includes(` ${e} `)) return true;
  const have = new Set(p.trim().split(' ').map(stem));
  return e.split(' ').every((w) => /^\d+$/.test(w) || have.has(stem(w)));
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
    const k = nameKey(raw);
    if (!k) return { error: 'an entity is empty' };
    if (!inPrompt(prompt, tidy(raw))) return { error: `entity ${JSON.stringify(raw)} is not in the request` };
    if (!byKey.has(k)) byKey.set(k, tidy(raw));
  }
  if (byKey.size === 0) return { error: 'no entities' };
  const out: [string, string][] = [];
  const labels: Record<string, string> = {};
  const seen = new Set<string>();
  for (const [from, to, label] of edges) {
    const [f, t] = [byKey.get(nameKey(from)), byKey.get(nameKey(to))];
    if (f === undefined) return { error: `edge end ${JSON.stringify(from)} is not one of the entities` };
    if (t === undefined) return { error: `edge end ${JSON.stringify(to)} is not one of the entities` };
    if (f === t) return { error: `edge ${JSON.stringify(from)} -> itself` };
    const pair = `${f}\u0000${t}`;
    if (!seen.has(pair)) out.push([f, t]);
    seen.add(pair);
    if (label?.trim()) labels[`${f}->${t}`] = label.trim();
  }
  return { entities: [...byKey.values()], edges: out, ...(Object.keys(labels).length ? { edgeLabels: labels } : {}) };
}
