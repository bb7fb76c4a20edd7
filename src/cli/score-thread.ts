// A scoring thread of `canvasgym score` (score-threads.ts): scores chunks of JSONL lines with one preset and answers
// each chunk with its output lines; the main thread reads, hands out, writes, and scores what no worker is free for.
import { parentPort, workerData } from 'node:worker_threads';
import { getRubric } from '../diagram/reward/presets.ts';
import { scoreChunk, type LineChunk } from './score-threads.ts';

const rubric = getRubric((workerData as { reward: string }).reward);
const port = parentPort!;
port.on('message', (chunk: LineChunk) => port.postMessage(scoreChunk(rubric, chunk)));
