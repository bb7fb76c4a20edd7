import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, type RunningServer } from '../../src/server/app.ts';
import { getRubric } from '../../src/diagram/reward/presets.ts';
import { generateTasks } from '../../src/diagram/tasks/generate.ts';
import { generateEditingTasks, solveEdit } from '../../src/editing/tasks.ts';
import { chatText } from '../../src/model/chat.ts';

let srv: RunningServer;
let venv: string;
let py: string;
beforeAll(async () => {
  srv = await startServer({ port: 0, maxSessions: 8 });
  // The package as a user gets it: a fresh venv, `pip install ./python`, no index (nothing here may be downloaded).
  venv = mkdtempSync(join(tmpdir(), 'canvasgym-venv-'));
  execFileSync('python3', ['-m', 'venv', venv]);
  py = join(venv, 'bin', 'python');
  execFileSync(py, ['-m', 'pip', 'install', '--no-index', '--disable-pip-version-check', '--quiet', join(import.meta.dirname, '..', '..', 'python')], { stdio: 'pipe' });
}, 120_000);
afterAll(async () => {
  await srv.close();
  rmSync(venv, { recursive: true, force: true });
});

/** Runs a Python snippet in the venv (outside the repository, so only the installed package can be imported) with
 *  CANVASGYM_URL set; resolves with its JSON stdout. */
function python(code: string, input: unknown, env: Record<string, string> = {}): Promise<any> {
  return new Promise((resolve, reject) => {
    const child = spawn(py, ['-c', code], {
      cwd: venv,
      env: { ...process.env, CANVASGYM_URL: srv.url, CANVASGYM_API_KEY: '', CANVASGYM_REWARD: '', PYTHONPATH: '', ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`python exited ${code}: ${err}`))));
    child.stdin.end(JSON.stringify(input));
  });
}

/** What a proxy in front of the server does with request number `n` (from 0): pass it on, answer it itself, or cut
 *  the connection without an answer. */
type Plan = (n: number, path: string) => 'forward' | 'drop' | { status: number; body: unknown };

/** A proxy to `target` that follows `plan` and records each request's path and, for JSON arrays, its row count. */
async function proxy(target: string, plan: Plan, rewrite?: (path: string, body: any) => any) {
  const seen: { path: string; rows?: number; bytes: number }[] = [];
  const t = new URL(target);
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const path = req.url ?? '/';
      let rows: number | undefined;
      try {
        const parsed = JSON.parse(raw.toString('utf8'));
        if (Array.isArray(parsed)) rows = parsed.length;
        else if (Array.isArray(parsed?.query)) rows = parsed.query.length;
      } catch {
        // a GET: no body
      }
      const step = plan(seen.length, path);
      seen.push({ path, rows, bytes: raw.length });
      if (step === 'drop') return void req.socket.destroy();
      if (step !== 'forward') {
        res.writeHead(step.status, { 'content-type': 'application/json' });
        return void res.end(JSON.stringify(step.body));
      }
      const up = httpRequest({ host: t.hostname, port: t.port, path, method: req.method, headers: req.headers }, (r) => {
        const parts: Buffer[] = [];
        r.on('data', (c: Buffer) => parts.push(c));
        r.on('end', () => {
          let body = Buffer.concat(parts);
          if (rewrite) body = Buffer.from(JSON.stringify(rewrite(path, JSON.parse(body.toString('utf8')))));
          res.writeHead(r.statusCode!, { 'content-type': 'application/json', 'content-length': body.length });
          res.end(body);
        });
      });
      up.end(raw);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

const answer = (labels: string[]) =>
  JSON.stringify({
    actions: [
      ...labels.map((text, i) => ({ type: 'create_shape', id: `n${i}`, shape: 'rectangle', x: 40 + 260 * i, y: 40, w: 220, h: 60, text })),
      ...labels.slice(1).map((_, i) => ({ type: 'connect', from: `n${i}`, to: `n${i + 1}` })),
    ],
  });

describe('python canvasgym_client against a running server', () => {
  const tasks = generateTasks({ split: 'train', n: 4, seed: 12 });
  const strong = getRubric('strong');

  it("reward_func and reward_func_async take TRL's string and conversational forms, the spec column and log_metric", async () => {
    const completions = tasks.map((t, i) => (i === 3 ? 'nothing' : answer(t.spec.entities.slice(0, i + 1))));
    const got = await python(
      `import asyncio, inspect, json, sys
from canvasgym_client import reward_func, reward_func_async
d = json.load(sys.stdin)
logged = []
plain = reward_func(d["prompts"], d["completions"], spec=d["specs"], log_metric=lambda k, v: logged.append([k, v]), trainer_state=None)
conv = reward_func([[{"role": "system", "content": "sys"}, {"role": "user", "content": p}] for p in d["prompts"]],
                   [[{"role": "assistant", "content": c + "<|im_end|>"}] for c in d["completions"]], spec=[json.dumps(s) for s in d["specs"]])
nospec = asyncio.run(reward_func_async(d["prompts"], d["completions"]))
print(json.dumps({"plain": plain, "conv": conv, "nospec": nospec, "logged": logged, "is_async": inspect.iscoroutinefunction(reward_func_async)}))`,
      { prompts: tasks.map((t) => t.prompt), completions, specs: tasks.map((t) => t.spec) },
    );
    const scored = tasks.map((t, i) => strong.score({ prompt: t.prompt, completion: completions[i], spec: t.spec }));
    const withSpec = scored.map((s) => s.reward);
    expect(got.plain).toEqual(withSpec);
    // The conversational completions end with ChatML's end token: the server strips it.
    expect(got.conv).toEqual(withSpec);
    expect(got.nospec).toEqual(tasks.map((t, i) => strong.score({ prompt: t.prompt, completion: completions[i] }).reward));
    expect(got.is_async).toBe(true);
    expect(got.plain[2]).toBeGreaterThan(got.plain[0]);
    const mean = (k: string) => scored.reduce((s, x) => s + x.components[k], 0) / scored.length;
    expect(got.logged.map(([k]: [string]) => k)).toEqual(Object.keys(scored[0].components).map((k) => `canvasgym/${k}`));
    for (const [k, v] of got.logged) expect(v).toBeCloseTo(mean(k.slice('canvasgym/'.length)), 12);
  });

  it("compute_score and compute_score_batch follow verl's signatures, extra keywords included, and refuse a sample without a prompt", async () => {
    const t = tasks[1];
    const good = answer(t.spec.entities);
    const got = await python(
      `import json, sys
from canvasgym_client import compute_score, compute_score_batch
d = json.load(sys.stdin)
out = {}
out["single"] = compute_score("canvasgym", d["completion"], d["spec"], {"prompt": d["prompt"], "index": 3}, num_turns=1, rollout_reward_scores={})
out["messages"] = compute_score(data_source="canvasgym", solution_str=d["completion"] + "</s>", ground_truth=json.dumps(d["spec"]),
                                extra_info={"prompt": [{"role": "user", "content": d["prompt"]}]})
out["components"] = compute_score("canvasgym", "no json", "", {"prompt": d["prompt"]}, components=True, reward="seed")
out["batch"] = compute_score_batch(data_sources=["canvasgym"] * 3, solution_strs=[d["completion"], "no json", d["completion"]],
                                   ground_truths=[d["spec"], "", None], extra_infos=[{"prompt": d["prompt"]}] * 3, rollout_reward_scores=[])
errors = []
for call in (lambda: compute_score("canvasgym", d["completion"], d["spec"], None),
             lambda: compute_score("canvasgym", d["completion"], d["spec"], {"question": d["prompt"]}),
             lambda: compute_score_batch(["a", "a"], ["x", "y"], ["", ""], [{"prompt": d["prompt"]}, {"prompt": ""}])):
    try:
        call()
        errors.append(None)
    except ValueError as e:
        errors.append(str(e))
out["errors"] = errors
print(json.dumps(out))`,
      { prompt: t.prompt, completion: good, spec: t.spec },
    );
    const full = strong.score({ prompt: t.prompt, completion: good, spec: t.spec }).reward;
    expect(got.single).toBe(full);
    expect(got.messages).toBe(full);
    const seed = getRubric('seed').score({ prompt: t.prompt, completion: 'no json' });
    expect(got.components).toEqual({ score: seed.reward, ...seed.components });
    expect(got.batch).toEqual([full, strong.score({ prompt: t.prompt, completion: 'no json' }).reward, strong.score({ prompt: t.prompt, completion: good }).reward]);
    expect(got.errors[0]).toMatch(/^compute_score: extra_info has no prompt: put the request in extra_info\['prompt'\]/);
    expect(got.errors[1]).toMatch(/^compute_score: extra_info has no prompt/);
    expect(got.errors[2]).toMatch(/^compute_score_batch: sample 1: extra_info has no prompt/);
  });

  it("openrlhf_reward_func answers OpenRLHF's reward_func(queries, prompts, labels)", async () => {
    const prompts = tasks.map((t) => `<|im_start|>user\n${t.prompt}<|im_end|>\n<|im_start|>assistant\n`);
    const completions = tasks.map((t, i) => (i === 0 ? 'oops' : answer(t.spec.entities)));
    const got = await python(
      `import json, sys
from canvasgym_client import openrlhf_reward_func
d = json.load(sys.stdin)
print(json.dumps(openrlhf_reward_func([p + c + "<|im_end|>" for p, c in zip(d["prompts"], d["completions"])], d["prompts"], d["labels"])))`,
      { prompts, completions, labels: tasks.map((t, i) => (i === 2 ? '' : t.spec)) },
    );
    const expected = tasks.map((t, i) => strong.score({ prompt: t.prompt, completion: completions[i], spec: i === 2 ? undefined : t.spec }));
    expect(got.rewards).toEqual(expected.map((s) => s.reward));
    expect(got.scores).toEqual(got.rewards);
    expect(got.extra_logs.entities_present).toEqual(expected.map((s) => s.components.entities_present));
  });

  it('EpisodeClient plays an editing episode to the goal and reports server errors', async () => {
    const task = generateEditingTasks({ split: 'train', n: 1, seed: 2, edits: ['remove_reconnect'] })[0];
    const got = await python(
      `import json, sys
from canvasgym_client import CanvasgymError, EpisodeClient
d = json.load(sys.stdin)
with EpisodeClient(env="editing") as ep:
    obs, info = ep.reset(task=d["task"])
    o1, r1, term1, trunc1, i1 = ep.step("not json")
    o2, r2, term2, trunc2, i2 = ep.step({"actions": d["actions"]})
    state = ep.state()
    try:
        ep.step('{"done": true}')
        over = None
    except CanvasgymError as e:
        over = [e.status, str(e)]
    sid = ep.session_id
try:
    EpisodeClient().step("x")
    early = None
except CanvasgymError as e:
    early = str(e)
print(json.dumps({"instruction": obs["instruction"], "r1": r1, "term1": term1, "feedback1": o1["feedback"], "r2": r2,
                  "term2": term2, "goal": i2["goal_met"], "turn": state["turn"], "over": over, "early": early, "sid": sid}))`,
      { task, actions: solveEdit(task) },
    );
    expect(got).toMatchObject({ instruction: task.instruction, r1: 0, term1: false, feedback1: ['model output does not contain JSON'], term2: true, goal: true, turn: 2 });
    expect(got.r2).toBeGreaterThan(0.7);
    expect(got.over[0]).toBe(409);
    expect(got.over[1]).toMatch(/POST \/step: 409 step\(\) after the episode ended/);
    expect(got.early).toMatch(/step\(\) before reset\(\)/);
    expect(srv.sessions.size).toBe(0);
  });

  it('sends the bearer token from CANVASGYM_API_KEY to a server started with --api-key', async () => {
    const keyed = await startServer({ port: 0, scoringThreads: 0, apiKey: 'py-key' });
    try {
      const t = tasks[0];
      const code = `import json, sys
from canvasgym_client import CanvasgymError, EpisodeClient, reward_func
d = json.load(sys.stdin)
try:
    rewards = reward_func([d["prompt"]], [d["completion"]])
    with EpisodeClient(env="diagram") as ep:
        obs, info = ep.reset(seed=1)
    print(json.dumps({"rewards": rewards, "instruction": obs["instruction"]}))
except CanvasgymError as e:
    print(json.dumps({"status": e.status, "error": str(e)}))`;
      const input = { prompt: t.prompt, completion: answer(t.spec.entities) };
      const good = await python(code, input, { CANVASGYM_URL: keyed.url, CANVASGYM_API_KEY: 'py-key' });
      expect(good.rewards).toEqual([strong.score(input).reward]);
      expect(typeof good.instruction).toBe('string');
      const none = await python(code, input, { CANVASGYM_URL: keyed.url });
      expect(none).toEqual({ status: 401, error: 'POST /reward: 401 missing API key: send the header Authorization: Bearer KEY (this server was started with --api-key)' });
    } finally {
      await keyed.close();
    }
  });

  it('names the server it cannot reach, after its retries', async () => {
    const got = await python(
      `import json
from canvasgym_client import CanvasgymError, Client
try:
    Client("http://127.0.0.1:9", retries=2, backoff=0.01).score([{"prompt": "p", "completion": "c"}])
except CanvasgymError as e:
    print(json.dumps(str(e)))`,
      {},
    );
    expect(got).toMatch(/^cannot reach canvasgym at http:\/\/127.0.0.1:9 \(set CANVASGYM_URL\): .*\(after 3 tries\)$/);
  });

  it('retries 5xx answers and lost connections with backoff; an episode step only where the server did nothing', async () => {
    const t = tasks[0];
    // /health answered, then the first two scoring requests fail (a 503, a cut connection), then all pass.
    let scoring = 0;
    const flaky = await proxy(srv.url, (_n, path) => {
      if (!path.startsWith('/reward')) return 'forward';
      scoring++;
      return scoring === 1 ? { status: 503, body: { error: { message: 'busy', code: 'server_busy' } } } : scoring === 2 ? 'drop' : 'forward';
    });
    // Every /step fails with a 500: a step may have been applied, so it is not sent again.
    const broken = await proxy(srv.url, (_n, path) => (path === '/step' ? { status: 500, body: { error: { message: 'boom', code: 'internal_error' } } } : 'forward'));
    try {
      const got = await python(
        `import json, sys, time
from canvasgym_client import CanvasgymError, Client, EpisodeClient
d = json.load(sys.stdin)
start = time.monotonic()
rewards = [r["reward"] for r in Client(d["flaky"], retries=3, backoff=0.05).score([{"prompt": d["prompt"], "completion": d["completion"]}])]
waited = time.monotonic() - start
ep = EpisodeClient(env="diagram", client=Client(d["broken"], retries=3, backoff=0.01))
ep.reset(seed=1)
try:
    ep.step(d["completion"])
    step = None
except CanvasgymError as e:
    step = [e.status, str(e)]
ep.close()
print(json.dumps({"rewards": rewards, "waited": waited, "step": step}))`,
        { flaky: flaky.url, broken: broken.url, prompt: t.prompt, completion: answer(t.spec.entities) },
      );
      expect(got.rewards).toEqual([strong.score({ prompt: t.prompt, completion: answer(t.spec.entities) }).reward]);
      expect(flaky.seen.filter((r) => r.path === '/reward').length).toBe(3);
      // Two waits: 0.05 s and 0.1 s, each with up to half taken off for jitter.
      expect(got.waited).toBeGreaterThanOrEqual(0.075);
      expect(got.step).toEqual([500, 'POST /step: 500 boom']);
      expect(broken.seen.filter((r) => r.path === '/step').length).toBe(1);
    } finally {
      await flaky.close();
      await broken.close();
    }
  });

  it("splits a batch to the server's --max-batch and --max-body-bytes, and reads the limits again after a 413", async () => {
    const limited = await startServer({ port: 0, maxBatch: 7, maxBodyBytes: 16 * 1024, scoringThreads: 0 });
    // The first /health this proxy answers claims a limit of 1,000 rows: the client learns the real one from the 413.
    let healthReads = 0;
    const front = await proxy(limited.url, () => 'forward', (path, body) => (path === '/health' && healthReads++ === 0 ? { ...body, limits: { ...body.limits, max_batch: 1000 } } : body));
    try {
      const many = generateTasks({ split: 'train', n: 50, seed: 4 });
      const rows = many.map((t, i) => ({ prompt: t.prompt, completion: i % 3 ? answer(t.spec.entities) : 'x'.repeat(3000) }));
      const got = await python(
        `import json, sys
from canvasgym_client import Client
d = json.load(sys.stdin)
c = Client(d["url"])
first = [r["reward"] for r in c.score(d["rows"])]
again = [r["reward"] for r in c.score(d["rows"])]
gr = c.get_reward([r["prompt"] + r["completion"] for r in d["rows"]], [r["prompt"] for r in d["rows"]])
print(json.dumps({"first": first, "again": again, "get_reward": gr["rewards"], "logs": len(gr["extra_logs"]["entities_present"])}))`,
        { url: front.url, rows },
      );
      const expected = rows.map((r) => strong.score(r).reward);
      expect(got.first).toEqual(expected);
      expect(got.again).toEqual(expected);
      expect(got.get_reward).toEqual(expected);
      expect(got.logs).toBe(50);
      // Chunks within 16 KiB from the start; those over 7 rows refused with 413 until the limits are read again, then
      // every chunk within both limits, all accepted.
      const secondHealth = front.seen.findIndex((r, i) => r.path === '/health' && i > 0);
      const before = front.seen.slice(1, secondHealth), after = front.seen.slice(secondHealth + 1);
      expect(before.some((r) => r.rows! > 7)).toBe(true);
      for (const r of [...before, ...after]) expect(r.bytes).toBeLessThanOrEqual(16 * 1024);
      for (const r of after) expect(r.rows).toBeLessThanOrEqual(7);
      expect(after.filter((r) => r.path === '/reward').reduce((s, r) => s + r.rows!, 0)).toBe(100);
      expect(after.filter((r) => r.path === '/get_reward').reduce((s, r) => s + r.rows!, 0)).toBe(50);
      expect(front.seen.filter((r) => r.path === '/health').length).toBe(2);
    } finally {
      await front.close();
      await limited.close();
    }
  });

  it('the TRL, verl and OpenRLHF examples run up to the trainer: data preparation, the reward files as each trainer loads them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'canvasgym-examples-'));
    const examples = join(import.meta.dirname, '..', '..', 'python', 'examples');
    try {
      execFileSync('node', [join(import.meta.dirname, '..', '..', 'bin', 'canvasgym.js'), 'tasks', '--split', 'train', '--n', '6', '--seed', '3', '--out', join(dir, 'tasks.jsonl')], { stdio: 'pipe' });
      for (const trainer of ['verl', 'openrlhf', 'trl']) {
        const out = execFileSync(py, [join(examples, 'prepare_data.py'), join(dir, 'tasks.jsonl'), '--trainer', trainer, '--out', join(dir, trainer, 'data.json')], { encoding: 'utf8' });
        expect(out).toContain(`wrote 6 ${trainer} rows`);
      }
      const tasks = readFileSync(join(dir, 'tasks.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
      const verlRows = readFileSync(join(dir, 'verl', 'data.json'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
      expect(verlRows[0]).toEqual({
        data_source: 'canvasgym',
        prompt: [{ role: 'user', content: tasks[0].prompt }],
        ability: 'diagram',
        reward_model: { style: 'rule', ground_truth: expect.any(String) },
        extra_info: { split: 'train', index: 0, id: tasks[0].id, prompt: tasks[0].prompt },
      });
      expect(JSON.parse(verlRows[0].reward_model.ground_truth)).toEqual(tasks[0].spec);
      const answers = tasks.map((t, i) => (i % 2 ? answer(t.spec.entities) : answer(t.spec.entities.slice(0, 1))));
      const got = await python(
        `import asyncio, importlib.util, json, sys
d = json.load(sys.stdin)
def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
out = {}
# verl: load_extern_object's way, then the naive manager's call per sample and the batch manager's call.
verl = load(d["examples"] + "/verl/canvasgym_reward.py", "custom_module_1")
rows = [json.loads(l) for l in open(d["dir"] + "/verl/data.json")]
out["naive"] = [verl.compute_score(data_source=r["data_source"], solution_str=a, ground_truth=r["reward_model"]["ground_truth"],
                                   extra_info=dict(r["extra_info"], num_turns=None, rollout_reward_scores={})) for r, a in zip(rows, d["answers"])]
out["batch"] = verl.compute_score_batch(data_sources=[r["data_source"] for r in rows], solution_strs=d["answers"],
                                        ground_truths=[r["reward_model"]["ground_truth"] for r in rows],
                                        extra_infos=[dict(r["extra_info"], rollout_reward_scores={}) for r in rows], components=True)
# OpenRLHF: SingleTurnAgentExecutor's way; the query is prompt + response decoded with special tokens.
orl = load(d["examples"] + "/openrlhf/reward_func.py", "reward_func")
rows = [json.loads(l) for l in open(d["dir"] + "/openrlhf/data.json")]
prompts = [d["template"].replace("REQUEST", r["prompt"]) for r in rows]
out["openrlhf"] = [orl.reward_func([p + a + "<|end|>"], [p], [r["label"]])["rewards"][0] for p, a, r in zip(prompts, d["answers"], rows)]
# TRL: the script imports without TRL; its config names; the reward as GRPOTrainer calls it on the dataset's columns.
trl = load(d["examples"] + "/trl/train_grpo.py", "train_grpo")
args = trl.parse_args([])
out["model"] = args.model
out["config"] = trl.grpo_config(args)
rows = [json.loads(l) for l in open(d["dir"] + "/trl/data.json")]
from canvasgym_client import reward_func_async
out["trl"] = asyncio.run(reward_func_async(prompts=[r["prompt"] for r in rows], completions=[[{"role": "assistant", "content": a}] for a in d["answers"]],
                                           spec=[r["spec"] for r in rows], trainer_state=None))
try:
    trl.main([])
    out["boundary"] = None
except ModuleNotFoundError as e:
    out["boundary"] = e.name
print(json.dumps(out))`,
        { examples, dir, answers, template: chatText([{ role: 'user', content: 'REQUEST' }], true) },
        { CANVASGYM_REWARD: 'task' },
      );
      const task = getRubric('task');
      const scored = tasks.map((t, i) => task.score({ prompt: t.prompt, completion: answers[i], spec: t.spec }));
      expect(got.naive).toEqual(scored.map((s) => s.reward));
      expect(got.batch).toEqual(scored.map((s) => ({ score: s.reward, ...s.components })));
      expect(got.openrlhf).toEqual(scored.map((s) => s.reward));
      expect(got.trl).toEqual(scored.map((s) => s.reward));
      // The full answers score above the one-box ones: the spec reached the reward.
      expect(got.trl[1]).toBeGreaterThan(got.trl[0] + 0.3);
      expect(got.model).toBe('runs/default/sft/final');
      expect(got.config).toMatchObject({ num_generations: 8, max_completion_length: 512, beta: 0.02, per_device_train_batch_size: 8 });
      expect(['datasets', 'trl']).toContain(got.boundary);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
