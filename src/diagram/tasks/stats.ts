// Counts of what a split holds: distinct tasks per kind and level, distinct entity names, templates, scenarios.
import { DIAGRAM_KINDS, type DiagramKind } from './spec.ts';
import { LEVELS } from './difficulty.ts';
import { strata } from './generate.ts';
import { scenarioEntities, scenarios, type Vocab } from './scenarios.ts';
import { TEMPLATES } from './phrasing-templates.ts';
import { SEED_TASKS } from './seed-tasks.ts';

export interface SplitStats {
  split: Vocab;
  tasks: number;
  byKind: Record<DiagramKind, number>;
  byLevel: Record<number, number>;
  entities: number;
  templates: number;
  scenarios: number;
  domains: number;
}

/** Entity names (as specs spell them) that a vocabulary's tasks can contain before any renaming. */
export function entityNames(split: Vocab): Set<string> {
  const names = new Set(scenarios(split).flatMap((s) => scenarioEntities(s).map((e) => e.name)));
  if (split === 'train') for (const t of SEED_TASKS) for (const e of t.spec.entities) names.add(e);
  return names;
}

export function splitStats(split: Vocab): SplitStats {
  const byKind = Object.fromEntries(DIAGRAM_KINDS.map((k) => [k, 0])) as Record<DiagramKind, number>;
  const byLevel: Record<number, number> = Object.fromEntries(LEVELS.map((l) => [l, 0]));
  for (const s of strata(split)) {
    const n = s.cells.reduce((m, c) => m + c.size, 0);
    byKind[s.kind] += n;
    byLevel[s.level] += n;
  }
  const list = scenarios(split);
  return {
    split,
    tasks: Object.values(byKind).reduce((a, b) => a + b, 0),
    byKind,
    byLevel,
    entities: entityNames(split).size,
    templates: TEMPLATES.filter((t) => t.split === split).length,
    scenarios: list.length,
    domains: new Set(list.map((s) => s.domain)).size,
  };
}

/** A markdown table, one column per split. */
export function formatStats(stats: SplitStats[]): string {
  const row = (label: string, cells: (string | number)[]) => `| ${label} | ${cells.join(' | ')} |`;
  const lines = [
    row('', stats.map((s) => s.split)),
    row('---', stats.map(() => '---:')),
    row('distinct tasks', stats.map((s) => s.tasks)),
    ...DIAGRAM_KINDS.map((k) => row(`kind ${k}`, stats.map((s) => s.byKind[k]))),
    ...LEVELS.map((l) => row(`difficulty ${l}`, stats.map((s) => s.byLevel[l]))),
    row('distinct entity names', stats.map((s) => s.entities)),
    row('phrasing templates', stats.map((s) => s.templates)),
    row('scenarios', stats.map((s) => s.scenarios)),
    row('domains', stats.map((s) => s.domains)),
  ];
  return lines.join('\n');
}
