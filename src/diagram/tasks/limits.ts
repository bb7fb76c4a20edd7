// What one task or one scored row may ask for, defined once: the task schema (spec.ts), the score rows of the CLI and
// the server (src/diagram/reward/rows.ts, src/server/reward.ts) and the scripted teacher refuse beyond these, each with a line
// naming the limit. They sit far above what the suite asks for (at most 12 entities, 12 edges, 5 arrow labels, names
// of 36 characters, prompts of 830) and low enough that the costliest row allowed scores in milliseconds: a
// 100,000-entity spec once held a scoring thread for over a minute. docs/tasks.md ("Limits") gives the table.

export const LIMITS = {
  /** Entities in a spec; also the most shape hints (`shapes`). */
  entities: 200,
  /** Edges in a spec; also the most requested arrow labels (`edgeLabels`). */
  edges: 1000,
  /** Characters in an entity name, an edge end, a shape hint's name or a requested arrow label. */
  nameChars: 100,
  /** Characters in a prompt: the user's request, without a chat template around it. */
  promptChars: 20_000,
  /** Nesting of arrays and objects in a row of `canvasgym score`, as `serve --max-json-depth` allows by default. */
  jsonDepth: 64,
} as const;

/** An `edgeLabels` key names two entities, "from->to", with room for spaces around the arrow. */
export const EDGE_LABEL_KEY_CHARS = 2 * LIMITS.nameChars + 4;

const count = (n: number) => n.toLocaleString('en');

/** The refusal of `actual` things where `limit` are allowed, e.g. "300 entities; the limit is 200". */
export function overLimit(actual: number, what: string, limit: number): string {
  return `${count(actual)} ${what}; the limit is ${count(limit)}`;
}

/** Why a prompt is refused ("25,000 characters; the limit is 20,000"), or null when it is within the limit. */
export function promptRefusal(prompt: string): string | null {
  return prompt.length > LIMITS.promptChars ? overLimit(prompt.length, 'characters', LIMITS.promptChars) : null;
}
