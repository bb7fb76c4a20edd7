// `canvasgym tasks --from-prompts`: a user's own requests made tasks, their specs extracted from the prompt or written
// by a chat model on a real HTTP server on 127.0.0.1 that answers well, answers garbage, fails, hangs or is not there.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inProcessCli, ONE_LINE } from '../helpers/cli.ts';
import { startOpenAIServer, type ChatRequest } from '../helpers/openai-server.ts';
import type { TestServer } from '../helpers/http-server.ts';
import { readTasks } from '../../src/cli/task-file.ts';
import { groundedSpec } from '../../src/diagram/specs/grounded.ts';
import { extractSpec } from '../../src/diagram/reward/extract.ts';

let work: string;
let server: TestServer;

const PROMPTS = {
  good: 'two producers write into one topic and three consumers read from it',
  plain: 'login goes to dashboard',
  garbage: 'the browser calls the gateway',
  invented: 'the app calls the cache',
  failing: 'the worker calls the queue',
  hanging: 'the client calls the server',
  empty: 'the user calls the shop',
};

/** The model's answer per request: good specs for two, something else for the rest. */
function reply(req: ChatRequest): string {
  // The request is the first user message; a second asks again after an answer that was not a spec.
  const prompt = req.messages[1]?.content ?? '';
  if (prompt === PROMPTS.good) {
    const consumers = ['consumer 1', 'consumer 2', 'consumer 3'];
    return JSON.stringify({
      entities: ['producer 1', 'producer 2', 'topic', ...consumers],
      edges: [{ from: 'producer 1', to: 'topic', label: 'writes' }, { from: 'producer 2', to: 'topic', label: '' }, ...consumers.map((c) => ({ from: 'topic', to: c, label: '' }))],
    });
  }
  // (reversed, so that the extraction and the model disagree on one request)
  if (prompt === PROMPTS.plain) return JSON.stringify({ entities: ['login', 'dashboard'], edges: [{ from: 'dashboard', to: 'login', label: '' }] });
  if (prompt === PROMPTS.empty) return '';
  if (prompt === PROMPTS.garbage) return 'Sure! Here is the spec you asked for.';
  if (prompt === PROMPTS.invented) return JSON.stringify({ entities: ['app', 'cache', 'database'], edges: [{ from: 'app', to: 'database', label: '' }] });
  return JSON.stringify({ entities: ['worker', 'queue'], edges: [{ from: 'worker', to: 'queue', label: '' }] });
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'from-prompts-'));
  server = await startOpenAIServer({
    model: 'spec',
    apiKey: 'k',
    reply,
    faultFor: (req) => {
      const prompt = req?.messages?.[1]?.content ?? '';
      return prompt === PROMPTS.failing ? 500 : prompt === PROMPTS.hanging ? 'hang' : undefined;
    },
  });
});
afterAll(async () => {
  await server.close();
  rmSync(work, { recursive: true, force: true });
});

const rows = (path: string) =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

describe('tasks --from-prompts', () => {
  it('without a model: the extraction the prompt-only reward reads, as task rows every command reads', async () => {
    const input = join(work, 'plain.txt');
    writeFileSync(input, `${PROMPTS.plain}\n\n${PROMPTS.good}\n`);
    const out = join(work, 'plain.jsonl');
    const r = await inProcessCli(['tasks', '--from-prompts', input, '--out', out]);
    expect(r.code).toBe(0);
    const written = rows(out);
    expect(written.map((w) => [w.id, w.spec_source])).toEqual([
      ['line-1', 'extract'],
      ['line-3', 'extract'],
    ]);
    expect(written[0].spec).toEqual(extractSpec(PROMPTS.plain));
    expect((await readTasks(out)).map((t) => t.spec.entities)).toEqual([extractSpec(PROMPTS.plain).entities, extractSpec(PROMPTS.good).entities]);
    const teacherOut = join(work, 'teacher');
    expect((await inProcessCli(['teacher', '--tasks', out, '--out', teacherOut])).code).toBe(0);
    expect(rows(join(teacherOut, 'train.jsonl')).length).toBeGreaterThan(0);
  });

  it('with a model: its checked specs, the extraction where it fails, a review of disagreements, and a cache', async () => {
    const input = join(work, 'mixed.jsonl');
    writeFileSync(input, Object.entries(PROMPTS).map(([id, prompt]) => JSON.stringify({ id, prompt })).join('\n') + '\n');
    const [out, review, cache] = [join(work, 'mixed.jsonl.out'), join(work, 'review.jsonl'), join(work, 'cache')];
    const args = ['tasks', '--from-prompts', input, '--out', out, '--spec-model', 'openai:spec', '--spec-base-url', `${server.url}/v1`, '--spec-api-key', 'k', '--spec-timeout', '400', '--spec-cache', cache, '--review', review];
    const r = await inProcessCli(args);
    expect(r.code).toBe(0);
    const byId = Object.fromEntries(rows(out).map((w) => [w.id, w]));
    expect(byId.good).toMatchObject({ spec_source: 'openai:spec', spec: { entities: ['producer 1', 'producer 2', 'topic', 'consumer 1', 'consumer 2', 'consumer 3'], edgeLabels: { 'producer 1->topic': 'writes' } } });
    expect((byId.good.spec as { edges: unknown[] }).edges).toHaveLength(5);
    expect(byId.plain.spec_source).toBe('openai:spec');
    expect(byId.garbage.spec_source).toMatch(/^extract \(openai:spec failed: not JSON/);
    expect(byId.invented.spec_source).toMatch(/^extract \(openai:spec failed: entity "database" is not in the request\)$/);
    expect(byId.failing.spec_source).toMatch(/^extract \(openai:spec failed: .*500/);
    expect(byId.hanging.spec_source).toMatch(/^extract \(openai:spec failed: .*gave no response within 400 ms/);
    expect(byId.empty.spec_source).toMatch(/^extract \(openai:spec failed: not JSON: ""\)$/);
    for (const id of ['garbage', 'invented', 'failing', 'hanging', 'empty']) expect(byId[id].spec).toEqual(extractSpec(PROMPTS[id as keyof typeof PROMPTS]));
    // Garbage is asked again (three times in all); a 500 is retried by the client (three requests).
    const asked = (word: string) => server.requests.filter((q) => JSON.stringify(q.body).includes(word)).length;
    expect(asked(PROMPTS.garbage)).toBe(3);
    // Asked again, the model sees its answer and what was wrong with it.
    const again1 = server.requests.filter((q) => JSON.stringify(q.body).includes(PROMPTS.garbage))[1].body as ChatRequest;
    expect(again1.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(again1.messages[3].content).toMatch(/^That answer cannot be used: not JSON/);
    expect(asked(PROMPTS.failing)).toBe(3);
    // The review lists the one prompt where the extraction and the model disagree, with what each lacks.
    const reviewed = rows(review);
    expect(reviewed.map((x) => x.id)).toEqual(['plain']);
    const plain = reviewed.find((x) => x.id === 'plain') as { only_model: { entities: string[]; edges: string[][] } };
    expect(plain.only_model).toEqual({ entities: [], edges: [['dashboard', 'login']] });
    expect(r.stderr).toMatch(/wrote 7 tasks .*openai:spec: 7 asked, 0 from the cache, 5 fell back to the extraction; 1 where the extraction disagrees/);
    // A rerun asks nothing the cache holds and writes the same bytes.
    const before = server.requests.length;
    const first = readFileSync(out, 'utf8');
    const again = await inProcessCli(args);
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(/2 from the cache/);
    expect(server.requests.filter((q) => JSON.stringify(q.body).includes(PROMPTS.good)).length).toBe(1);
    expect(server.requests.length - before).toBe(3 + 3 + 3 + 3 + 3);
    expect(readFileSync(out, 'utf8')).toBe(first);
    // The request asks for structured output with the spec's schema.
    const body = server.requests[0].body as ChatRequest;
    expect(body.response_format?.type).toBe('json_schema');
    expect(body.response_format?.json_schema?.name).toBe('diagram_spec');
  });

  it('refuses a wrong key, a server that is not there and flags that need another, in one line', async () => {
    const input = join(work, 'one.txt');
    writeFileSync(input, `${PROMPTS.plain}\n`);
    const base = ['tasks', '--from-prompts', input, '--spec-model', 'openai:spec', '--spec-cache', join(work, 'c2')];
    const wrongKey = await inProcessCli([...base, '--spec-base-url', `${server.url}/v1`, '--spec-api-key', 'nope']);
    expect(wrongKey.code).toBe(2);
    expect(wrongKey.stderr).toMatch(ONE_LINE);
    expect(wrongKey.stderr).toMatch(/^canvasgym: --spec-model: .*(401|API key)/);
    // No server at all fails every request alike: one line, as a wrong key.
    const none = await inProcessCli([...base, '--spec-base-url', `http://127.0.0.1:${await closedPort()}/v1`, '--spec-timeout', '300']);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(ONE_LINE);
    expect(none.stderr).toMatch(/refused the connection/);
    for (const [bad, says] of [
      [['tasks', '--from-prompts', input, '--split', 'train'], /--split makes generated tasks/],
      [['tasks', '--from-prompts', input, '--seed', '3'], /--seed makes generated tasks/],
      [['tasks', '--review', join(work, 'r.jsonl'), '--from-prompts', input], /--review needs --spec-model/],
      [['tasks', '--spec-model', 'openai:spec', '--split', 'train', '--n', '1'], /--spec-model needs --from-prompts/],
      [['tasks', '--from-prompts', input, '--spec-model', 'spec'], /--spec-model must be openai:MODEL/],
      [['tasks', '--from-prompts', input, '--spec-model', 'openai:spec', '--review', join(work, 'same.jsonl'), '--out', join(work, 'same.jsonl')], /--review and --out name the same file/],
      [['tasks', '--from-prompts', join(work, 'missing.txt')], /--from-prompts: no such file/],
    ] as const) {
      const r = await inProcessCli([...bad]);
      expect(r.code, bad.join(' ')).toBe(2);
      expect(r.stderr, bad.join(' ')).toMatch(ONE_LINE);
      expect(r.stderr, bad.join(' ')).toMatch(says);
    }
  });

  it('keeps the spec a row brings', async () => {
    const input = join(work, 'own.jsonl');
    const spec = { entities: ['login', 'home'], edges: [['login', 'home']] };
    writeFileSync(input, `${JSON.stringify({ id: 'mine', prompt: PROMPTS.plain, spec })}\n`);
    const r = await inProcessCli(['tasks', '--from-prompts', input]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ id: 'mine', prompt: PROMPTS.plain, spec, spec_source: 'input' });
  });
});

describe('a model spec is checked against its request', () => {
  it('takes spans, plurals and counted names, and refuses inventions and loose edges', () => {
    const prompt = 'Three consumers read from the orders topic; the API writes to it.';
    expect(groundedSpec(prompt, ['consumer 1', 'the orders topic', 'API'], [['orders topic', 'consumer 1']])).toEqual({ entities: ['consumer 1', 'orders topic', 'API'], edges: [['orders topic', 'consumer 1']] });
    expect(groundedSpec(prompt, ['database'], [])).toEqual({ error: 'entity "database" is not in the request' });
    expect(groundedSpec(prompt, ['API', 'consumer 1'], [['API', 'topic']])).toEqual({ error: 'edge end "topic" is not one of the entities' });
    expect(groundedSpec(prompt, ['API'], [['API', 'api']])).toEqual({ error: 'edge "API" -> itself' });
    expect(groundedSpec(prompt, [], [])).toEqual({ error: 'no entities' });
    expect(groundedSpec(prompt, ['3'], [])).toEqual({ error: 'entity "3" is not in the request' });
    expect(groundedSpec(prompt, ['consumer', 'consumers'], [['consumers', 'Consumer']])).toEqual({ error: 'edge "consumers" -> itself' });
  });
});
