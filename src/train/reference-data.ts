// SFT data without a teacher: an environment's reference answers to its train split, as TRL `messages` JSONL with each
// row's spec (so that SFT's held-out samples are scored as GRPO will score them).
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { TextEnv } from '../environment/text-env.ts';

/** Writes up to `n` rows to `path` (fewer where the split holds fewer tasks) and returns how many. */
export function writeReferenceData(env: TextEnv, path: string, n: number, seed: number): number {
  const reference = env.reference;
  if (!reference) throw new Error(`the ${env.name} environment has no reference answers`);
  const tasks = env.tasks(env.splits[0], n, seed);
  const rows = tasks.map((task) => JSON.stringify({ messages: [...env.conversation(task), { role: 'assistant', content: reference(task) }], spec: task.spec }) + '\n');
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, rows.join(''));
  return rows.length;
}
