// Prompt-only extraction on requests written by hand in styles the task generator does not use (arrows, "X feeds Y",
// "from X to Y", numbered and bulleted steps, questions, casual and terse English, typos, single letters and numbers,
// longer prose): entity precision and recall and edge F1, per style and over all. The set is kept apart from the
// generator's splits; test/fixtures/handwritten-requests.jsonl holds each request with the spec a person would write.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { extractSpec } from '../../../src/diagram/reward/extract.ts';
import { taskRubric } from '../../../src/diagram/reward/task.ts';
import { honestCompletion } from '../../../src/diagram/reward/hacks.ts';
import { addCounts, f1, precision, recall, scoreExtraction, ZERO_COUNTS, type ExtractionCounts } from '../../../src/diagram/tasks/extraction-metrics.ts';

interface Request {
  style: string;
  prompt: string;
  entities: string[];
  edges: [string, string][];
}

const read = (name: string): Request[] =>
  readFileSync(new URL(`../../fixtures/${name}`, import.meta.url), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Request);
/** The set the rules were tuned on. */
const REQUESTS = read('handwritten-requests.jsonl');
/** Written after the tuning, in the same styles, and never tuned on: the honest figure for new phrasings. */
const HELD_OUT = read('handwritten-requests-heldout.jsonl');

function measure(requests: Request[], title: string) {
  const byStyle = new Map<string, ExtractionCounts>();
  let all = ZERO_COUNTS;
  const misses: string[] = [];
  for (const r of requests) {
    const got = extractSpec(r.prompt);
    const c = scoreExtraction(r, got);
    byStyle.set(r.style, addCounts(byStyle.get(r.style) ?? ZERO_COUNTS, c));
    all = addCounts(all, c);
    if (c.entities.fp + c.entities.fn + c.edges.fp + c.edges.fn > 0) misses.push(`[${r.style}] ${JSON.stringify(r.prompt)}\n   got ${JSON.stringify(got)}`);
  }
  const row = (name: string, c: ExtractionCounts) =>
    `| ${name} | ${precision(c.entities).toFixed(2)} | ${recall(c.entities).toFixed(2)} | ${precision(c.edges).toFixed(2)} | ${recall(c.edges).toFixed(2)} | ${f1(c.edges).toFixed(2)} |`;
  console.log(
    [`${title}: ${requests.length} requests`, '| style | entity P | entity R | edge P | edge R | edge F1 |', '|---|---:|---:|---:|---:|---:|',
      ...[...byStyle].map(([s, c]) => row(s, c)), row('all', all), '', `misses (${misses.length}):`, ...misses].join('\n'),
  );
  return { byStyle, all };
}

describe('extractSpec on hand-written requests', () => {
  it('finds the entities (precision and recall >= 0.9) and edges (F1 >= 0.8) over the set', () => {
    const { byStyle, all } = measure(REQUESTS, 'hand-written requests (tuned on)');
    expect(REQUESTS.length).toBeGreaterThanOrEqual(80);
    expect(byStyle.size).toBeGreaterThanOrEqual(10);
    expect(precision(all.entities)).toBeGreaterThanOrEqual(0.9);
    expect(recall(all.entities)).toBeGreaterThanOrEqual(0.9);
    expect(f1(all.edges)).toBeGreaterThanOrEqual(0.8);
  });

  it('holds up on requests written after the tuning', () => {
    const { all } = measure(HELD_OUT, 'hand-written requests (held out)');
    expect(HELD_OUT.length).toBeGreaterThanOrEqual(30);
    expect(precision(all.entities)).toBeGreaterThanOrEqual(0.8);
    expect(recall(all.entities)).toBeGreaterThanOrEqual(0.8);
    expect(f1(all.edges)).toBeGreaterThanOrEqual(0.7);
  });

  it('scores the exact answer to a request with single-letter or numeric names in full, spec given or read', () => {
    const exact = { style: 'letters', prompt: 'Draw A -> B.', entities: ['A', 'B'], edges: [['A', 'B']] as [string, string][] };
    for (const r of [exact, ...REQUESTS.filter((x) => x.style === 'letters')]) {
      const completion = honestCompletion({ prompt: r.prompt, spec: r });
      for (const spec of [r, undefined]) {
        const s = taskRubric.score({ prompt: r.prompt, completion, spec });
        expect(s.components.entities, r.prompt).toBe(1);
        expect(s.components.edges, r.prompt).toBe(1);
      }
    }
  });
});
