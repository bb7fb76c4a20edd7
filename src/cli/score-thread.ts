// A scoring thread of `canvasgym score` (score-threads.ts): scores chunks of JSONL lines with one preset and answers
// each chunk with its output lines, so the main thread only reads, hands out and writes.
import { parentPort, workerData } from 'node:worker_threads';
import { getRubric } from '../diagram/reward/presets.ts';
import { scoreInputLine } from '../diagram/reward/rows.ts';
import type { ScoredChunk, LineChunk } from './score-threads.ts';

const rubric = getRubric((workerData as { reward: string }).reward);
const port = parentPort!;
port.on('message', ({ id, lines }: LineChunk) => {
  let failed = 0;
  const out = lines.map((line) => {
    const scored = scoreInputLine(rubric, line);
    if (!scored.ok) failed++;
    return scored.json ?? JSON.stringify(scored.row);
  });
  port.postMessage({ id, text: out.join('\n'), rows: out.length, failed } satisfies ScoredChunk);
});
