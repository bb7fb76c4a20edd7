// One scoring request as a plain value, so that a scoring thread and the main thread run it the same way: the raw body
// in, the serialised answer (or the 4xx it earned) out. Parsing and serialising happen here, off the HTTP thread.
import { bodyObject, HttpError, parseJsonBody } from './http.ts';
import { openRlhfReward, rubricByName, scoreRows } from './reward.ts';

export type ScoreRoute = 'reward' | 'get_reward';

export interface ScoreJob {
  route: ScoreRoute;
  /** Reward preset, already checked by the HTTP thread. */
  reward: string;
  /** The request body as received. */
  body: Uint8Array;
  maxBatch: number;
  maxJsonDepth: number;
}

export type JobOutcome =
  | { ok: true; rows: number; body: Uint8Array }
  | { ok: false; status: number; code: string; message: string };

const encoder = new TextEncoder();

/** Runs a job; a client's mistake comes back as its 4xx, a bug as a 500 (logged where it happened). */
export function runScoreJob(job: ScoreJob): JobOutcome {
  try {
    const rubric = rubricByName(job.reward);
    const parsed = parseJsonBody(job.body, job.maxJsonDepth);
    if (job.route === 'reward') {
      const answer = scoreRows(rubric, parsed, job.maxBatch);
      return { ok: true, rows: answer.results.length, body: encoder.encode(JSON.stringify(answer)) };
    }
    const answer = openRlhfReward(rubric, bodyObject(parsed, '{"query": [...], "prompts": [...], "labels": [...]}'), job.maxBatch);
    return { ok: true, rows: answer.rewards.length, body: encoder.encode(JSON.stringify(answer)) };
  } catch (err) {
    if (err instanceof HttpError) return { ok: false, status: err.status, code: err.code, message: err.message };
    process.stderr.write(`canvasgym serve: POST /${job.route} failed: ${(err as Error).stack ?? err}\n`);
    return { ok: false, status: 500, code: 'internal_error', message: `internal error: ${(err as Error).message}` };
  }
}
