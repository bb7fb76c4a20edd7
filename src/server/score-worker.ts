// A scoring thread of the server (see pool.ts): takes batches of jobs, answers each as soon as it is scored.
import { parentPort } from 'node:worker_threads';
import { runScoreJob, type ScoreJob } from './score-job.ts';

const port = parentPort!;
port.on('message', (jobs: { id: number; job: ScoreJob }[]) => {
  for (const { id, job } of jobs) {
    const outcome = runScoreJob(job);
    port.postMessage({ id, outcome }, outcome.ok ? [outcome.body.buffer as ArrayBuffer] : []);
  }
});
port.postMessage({ ready: true });
