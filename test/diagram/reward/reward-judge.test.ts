// The judge against OpenAI-compatible servers on 127.0.0.1, through the real `openai` SDK: one that grades, one that
// answers garbage, one that fails, one that never answers, one that is not there. A judgment is cached, logged with
// the rollout, in the report with its agreement figures; a failing judge gives no judgment and a counted warning.
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runScore } from '../../../src/cli/score.ts';
import { evaluatePolicy } from '../../../src/eval/evaluate.ts';
import { renderReport } from '../../../src/eval/report.ts';
import { spearman } from '../../../src/eval/stats.ts';
import { BaselinePolicy } from '../../../src/diagram/teacher/baselines.ts';
import type { Policy } from '../../../src/policy/policy.ts';
import { userPrompt } from '../../../src/model/chat.ts';
import { escapeXml as esc } from '../../../src/io/xml.ts';
import { HACKS, honestCompletion, HACK_PROMPTS } from '../../../src/diagram/reward/hacks.ts';
import { canvasAsText, Judge, JUDGE_RUBRIC, readVerdict } from '../../../src/diagram/reward/judge.ts';
import { withJudgment } from '../../../src/environment/judge.ts';
import { taskRubric } from '../../../src/diagram/reward/task.ts';
import { generateTasks } from '../../../src/diagram/tasks/generate.ts';
import { closedPort, startServer, type RecordedRequest, type TestServer } from '../../helpers/http-server.ts';
import { diagramEnv } from '../../../src/diagram/diagram-env.ts';

type Content = string | { type: string; text?: string; image_url?: { url: string } }[];
const userContent = (req: RecordedRequest) => (req.body as { messages: { role: string; content: Content }[] }).messages.find((m) => m.role === 'user')!.content;
const textOf = (c: Content) => (typeof c === 'string' ? c : c.map((p) => p.text ?? '').join('\n'));

/** A grader that reads the canvas text: nothing drawn 0, boxes without arrows 0.3, arrows 0.9. */
function grade(req: RecordedRequest): string {
  const text = textOf(userContent(req));
  const score = /drew nothing/.test(text) ? 0 : /Arrows \(0\)/.test(text) ? 0.3 : 0.9;
  return JSON.stringify({ reasoning: `graded ${score}`, score });
}

const reply = (content: string) => ({
  status: 200,
  body: { id: 'x', object: 'chat.completion', created: 0, model: 'judge-1', choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }] },
});

describe('judge', () => {
  let good: TestServer;
  let garbage: TestServer;
  let failing: TestServer;
  let hanging: TestServer;
  const cache = () => mkdtempSync(join(tmpdir(), 'canvasgym-judge-'));
  const input = HACK_PROMPTS[0];

  beforeAll(async () => {
    good = await startServer((req) => reply(grade(req)));
    garbage = await startServer(() => reply('I think this diagram is pretty good, maybe 8/10!'));
    failing = await startServer(() => ({ status: 500, body: { error: { message: 'boom', type: 'server_error' } } }));
    hanging = await startServer(() => ({ hang: true }));
  });
  afterAll(async () => {
    for (const s of [good, garbage, failing, hanging]) await s.close();
  });

  it('asks with the fixed rubric and the canvas as text, and caches the judgment on disk', async () => {
    const dir = cache();
    const judge = new Judge({ model: 'judge-1', baseURL: `${good.url}/v1`, cacheDir: dir });
    const before = good.requests.length;
    const first = await judge.judge(input.prompt, honestCompletion(input));
    expect(first).toMatchObject({ judge: 'openai:judge-1', score: 0.9, reasoning: 'graded 0.9', cached: false });
    const req = good.requests[good.requests.length - 1];
    const body = req.body as { model: string; messages: { role: string; content: string }[] };
    expect(body.model).toBe('judge-1');
    expect(body.messages[0]).toEqual({ role: 'system', content: JUDGE_RUBRIC });
    expect(body.messages[1].content).toContain(input.prompt);
    expect(body.messages[1].content).toMatch(/"Client" -> "API"/);
    // The same question again, from this judge or a new one over the same folder, asks nothing.
    expect(await judge.judge(input.prompt, honestCompletion(input))).toMatchObject({ score: 0.9, cached: true });
    expect(await new Judge({ model: 'judge-1', baseURL: `${good.url}/v1`, cacheDir: dir }).judge(input.prompt, honestCompletion(input))).toMatchObject({ cached: true });
    expect(good.requests.length - before).toBe(1);
    expect(readdirSync(dir).filter((f) => f.endsWith('.json'))).toHaveLength(1);
    // Another canvas, another model, another request: each its own entry.
    await judge.judge(input.prompt, JSON.stringify({ actions: [] }));
    await new Judge({ model: 'judge-2', baseURL: `${good.url}/v1`, cacheDir: dir }).judge(input.prompt, honestCompletion(input));
    expect(good.requests.length - before).toBe(3);
    expect(judge.stats).toEqual({ asked: 2, cached: 1, failed: 0, uncached: 0 });
    // A cache that cannot be written (a file where its folder should be) keeps the judgment and says so.
    const blocked = join(cache(), 'file');
    writeFileSync(blocked, 'x');
    const unwritable = new Judge({ model: 'judge-1', baseURL: `${good.url}/v1`, cacheDir: blocked });
    expect(await unwritable.judge(input.prompt, honestCompletion(input))).toMatchObject({ score: 0.9, cached: false, error: expect.stringMatching(/^not cached: /) });
    expect(unwritable.stats).toMatchObject({ uncached: 1, failed: 0 });
  });

  it('sends a vision model the rendered PNG', async () => {
    const judge = new Judge({ model: 'judge-1', baseURL: `${good.url}/v1`, cacheDir: cache(), image: true });
    expect((await judge.judge(input.prompt, honestCompletion(input))).score).not.toBeNull();
    const content = userContent(good.requests[good.requests.length - 1]) as { type: string; image_url?: { url: string } }[];
    const image = content.find((p) => p.type === 'image_url')!;
    const png = Buffer.from(image.image_url!.url.replace(/^data:image\/png;base64,/, ''), 'base64');
    expect(png.subarray(1, 4).toString()).toBe('PNG');
  });

  it('gives no judgment, with a counted warning, for garbage, a failing server, a hang and no server, and caches none', async () => {
    const fast = { backoffMs: 1, maxBackoffMs: 2, maxRetries: 1, timeoutMs: 300 };
    const cases: [string, string, RegExp][] = [
      ['garbage', `${garbage.url}/v1`, /no JSON object/],
      ['failing', `${failing.url}/v1`, /HTTP 500.*gave up after 2 attempts/],
      ['hanging', `${hanging.url}/v1`, /no response within 300 ms/],
      ['absent', `http://127.0.0.1:${await closedPort()}/v1`, /ECONNREFUSED/],
    ];
    for (const [name, baseURL, why] of cases) {
      const dir = cache();
      const judge = new Judge({ model: 'judge-1', baseURL, cacheDir: dir, ...fast });
      const j = await judge.judge(input.prompt, honestCompletion(input));
      expect(j.score, name).toBeNull();
      expect(j.error, name).toMatch(why);
      expect(judge.stats.failed, name).toBe(1);
      expect(readdirSync(dir), name).toEqual([]);
    }
    expect(failing.requests.length).toBe(2);
  });

  it('reads only a JSON score in [0, 1]', () => {
    expect(readVerdict('Sure: {"reasoning": "ok", "score": 0.25}')).toEqual({ score: 0.25, reasoning: 'ok' });
    for (const bad of ['{"score": 7}', '{"score": "0.5"}', '{"score": null}', '{"reasoning": "x"}', '{score: 1}', '']) expect(readVerdict(bad)).toHaveProperty('error');
  });

  it('weighs a judgment into the reward, and leaves the reward alone without one', () => {
    const s = taskRubric.score({ prompt: input.prompt, completion: honestCompletion(input), spec: input.spec });
    const judged = withJudgment(s, { judge: 'j', score: 0.5, reasoning: '', cached: false }, 0.2);
    expect(judged.reward).toBeCloseTo(0.8 * s.reward + 0.2 * 0.5, 12);
    expect(judged.components.judge).toBe(0.5);
    expect(judged.weights).toMatchObject({ ...s.weights, judge: 0.2 });
    const none = withJudgment(s, { judge: 'j', score: null, reasoning: '', cached: false, error: 'x' }, 0.2);
    expect(none.reward).toBe(s.reward);
    expect(none.components).not.toHaveProperty('judge');
  });

  it('describes the canvas a text model reads', () => {
    expect(canvasAsText(null, ['no JSON'])).toMatch(/drew nothing \(no JSON\)/);
  });

  it('`canvasgym score --judge` writes each judgment with its row, blended by --judge-weight; a dead judge leaves rewards as they were', async () => {
    const dir = cache();
    const rows = HACK_PROMPTS.map((p) => ({ prompt: p.prompt, completion: honestCompletion(p), spec: p.spec }));
    rows.push({ prompt: HACK_PROMPTS[1].prompt, completion: JSON.stringify({ actions: [{ type: 'create_shape', id: 'a', shape: 'rectangle', x: 0, y: 0, w: 100, h: 60, text: 'User' }] }), spec: HACK_PROMPTS[1].spec });
    writeFileSync(join(dir, 'in.jsonl'), rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const read = (f: string) => readFileSync(join(dir, f), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    const r = await runScore({ reward: 'task', in: join(dir, 'in.jsonl'), out: join(dir, 'out.jsonl'), judge: 'openai:judge-1', judgeWeight: '0.25', judgeBaseUrl: `${good.url}/v1`, judgeCache: join(dir, 'cache') });
    expect(r.judge).toMatch(/7 asked, 0 from the cache/);
    const out = read('out.jsonl');
    out.forEach((row, i) => {
      const plain = taskRubric.score(rows[i]).reward;
      expect(row.judgment.score).toBe(i < HACK_PROMPTS.length ? 0.9 : 0.3);
      expect(row.reward).toBeCloseTo(0.75 * plain + 0.25 * row.judgment.score, 12);
      expect(row.components.judge).toBe(row.judgment.score);
    });
    const again = await runScore({ reward: 'task', in: join(dir, 'in.jsonl'), out: join(dir, 'again.jsonl'), judge: 'openai:judge-1', judgeWeight: '0.25', judgeBaseUrl: `${good.url}/v1`, judgeCache: join(dir, 'cache') });
    expect(again.judge).toMatch(/0 asked, 7 from the cache/);
    expect(read('again.jsonl').map((x) => x.reward)).toEqual(out.map((x) => x.reward));
    const dead = await runScore({ reward: 'task', in: join(dir, 'in.jsonl'), out: join(dir, 'dead.jsonl'), judge: 'openai:judge-1', judgeWeight: '0.25', judgeBaseUrl: `${garbage.url}/v1`, judgeCache: join(dir, 'dead-cache') });
    expect(dead.judge).toMatch(/7 without a judgment/);
    read('dead.jsonl').forEach((row, i) => {
      expect(row.reward).toBe(taskRubric.score(rows[i]).reward);
      expect(row.judgment).toMatchObject({ score: null, error: expect.stringMatching(/no JSON object/) });
    });
    await expect(runScore({ reward: 'task', in: join(dir, 'in.jsonl'), judgeWeight: '0.5' })).rejects.toThrow(/--judge-weight needs --judge openai:MODEL/);
    await expect(runScore({ reward: 'task', in: join(dir, 'in.jsonl'), judge: 'gpt-4o' })).rejects.toThrow(/--judge must be openai:MODEL/);
    await expect(runScore({ reward: 'task', in: join(dir, 'in.jsonl'), judge: 'openai:x', judgeWeight: '1' })).rejects.toThrow(/--judge-weight must be a number in \[0, 1\)/);
  });

  it('eval logs a judgment per rollout, reports its agreement with the components, and lists disagreements in the report', async () => {
    const tasks = generateTasks({ split: 'heldout', n: 12, seed: 5 });
    const specs = new Map(tasks.map((t) => [t.prompt, t.spec]));
    const judge = new Judge({ model: 'judge-1', baseURL: `${good.url}/v1`, cacheDir: cache() });
    const result = await evaluatePolicy(diagramEnv, new BaselinePolicy('names', (p) => specs.get(p)!), tasks, { rubrics: ['task', 'strong'], judge: { judge, weight: 0.5 } });
    expect(result.rollouts.every((r) => r.judgment?.score === 0.3)).toBe(true);
    const m = result.metrics;
    expect(m.reward['task+judge'].mean).toBeCloseTo(0.5 * m.reward.task.mean + 0.5 * 0.3, 9);
    expect(m.judge).toMatchObject({ judge: 'openai:judge-1', judged: 12, failed: 0, versus: 'task' });
    // A constant judge ranks nothing: no correlation rather than a made-up one.
    expect(m.judge!.spearman['task reward']).toBeNull();
    const html = renderReport({ env: diagramEnv, title: 't', evals: [{ label: 'names', ...result }] });
    expect(html).toContain('<h2>Judge</h2>');
    expect(html).toContain('judge openai:judge-1: <b>0.30</b>');
    // The names without arrows score about 0.55 under task against the judge's 0.3: no disagreement of 0.5 or more.
    expect(m.judge!.disagreements).toEqual([]);

    // A policy that answers each task honestly, with names but no arrows, or with the right arrows between wrong
    // names: the grader above pays the last one 0.9, and the report lists where it and the task reward part ways.
    const hacks = ['honest', 'no_arrows', 'wrong_names'];
    const mixed: Policy = {
      name: 'mixed',
      async generate(conversations) {
        return conversations.map((c, i) => {
          const prompt = userPrompt(c);
          const inputOf = { prompt, spec: specs.get(prompt)! };
          const kind = hacks[i % 3];
          const text = kind === 'honest' ? honestCompletion(inputOf) : HACKS.find((h) => h.name === kind)!.make(inputOf);
          return [{ text, finishReason: 'stop' as const }];
        });
      },
    };
    const judgedMixed = await evaluatePolicy(diagramEnv, mixed, tasks, { rubrics: ['task'], judge: { judge, weight: 0 }, batchSize: 12 });
    const a = judgedMixed.metrics.judge!;
    expect(judgedMixed.metrics.reward).not.toHaveProperty('task+judge');
    expect(a.spearman['task reward']).not.toBeNull();
    expect(a.disagreements.length).toBe(4);
    for (const d of a.disagreements) {
      expect(d.judge - d.reward).toBeGreaterThanOrEqual(0.5);
      expect(judgedMixed.rollouts.find((r) => r.task_id === d.task_id)!.completion).toBe(HACKS.find((h) => h.name === 'wrong_names')!.make({ prompt: d.prompt, spec: specs.get(d.prompt)! }));
    }
    const mixedHtml = renderReport({ env: diagramEnv, title: 't', evals: [{ label: 'mixed', ...judgedMixed }] });
    expect(mixedHtml).toContain(esc(a.disagreements[0].prompt.slice(0, 160)));
    expect(mixedHtml).toContain('graded 0.9');

    const broken = await evaluatePolicy(diagramEnv, new BaselinePolicy('names', (p) => specs.get(p)!), tasks, {
      rubrics: ['task'],
      judge: { judge: new Judge({ model: 'judge-1', baseURL: `${garbage.url}/v1`, cacheDir: cache() }), weight: 0.5 },
    });
    expect(broken.metrics.judge).toMatchObject({ judged: 0, failed: 12 });
    expect(broken.metrics.reward['task+judge'].mean).toBeCloseTo(broken.metrics.reward.task.mean, 12);
    expect(renderReport({ env: diagramEnv, title: 't', evals: [{ label: 'names', ...broken }] })).toContain('<b>12 without a judgment</b>');
  });

  it('ranks with Spearman: ties averaged, monotone is 1, reversed -1, constant null', () => {
    expect(spearman([1, 2, 3, 4], [10, 20, 30, 400])).toBeCloseTo(1, 12);
    expect(spearman([1, 2, 3, 4], [4, 3, 2, 1])).toBeCloseTo(-1, 12);
    expect(spearman([1, 1, 2, 3], [1, 2, 3, 4])).toBeCloseTo(0.9486832980505138, 12);
    expect(spearman([1, 1, 1], [1, 2, 3])).toBeNull();
    expect(spearman([1, 2], [1, 2])).toBeNull();
  });
});
