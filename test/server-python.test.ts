import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { startServer, type RunningServer } from '../src/server/app.ts';
import { getRubric } from '../src/reward/presets.ts';
import { generateTasks } from '../src/tasks/generate.ts';
import { generateEditingTasks, solveEdit } from '../src/tasks/editing.ts';

let srv: RunningServer;
beforeAll(async () => {
  srv = await startServer({ port: 0, maxSessions: 8 });
});
afterAll(async () => {
  await srv.close();
});

/** Runs a Python snippet with canvasgym_client importable and CANVASGYM_URL set; resolves with its JSON stdout. */
function python(code: string, input: unknown, env: Record<string, string> = {}): Promise<any> {
  return new Promise((resolve, reject) => {
    const child = spawn('python3', ['-c', code], {
      env: { ...process.env, CANVASGYM_URL: srv.url, CANVASGYM_API_KEY: '', PYTHONPATH: join(import.meta.dirname, '..', 'python'), ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`python3 exited ${code}: ${err}`))));
    child.stdin.end(JSON.stringify(input));
  });
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

  it("reward_func takes TRL's string and conversational forms and passes the spec column through", async () => {
    const completions = tasks.map((t, i) => (i === 3 ? 'nothing' : answer(t.spec.entities.slice(0, i + 1))));
    const got = await python(
      `import json, sys
from canvasgym_client import reward_func
d = json.load(sys.stdin)
plain = reward_func(d["prompts"], d["completions"], spec=d["specs"])
conv = reward_func([[{"role": "system", "content": "sys"}, {"role": "user", "content": p}] for p in d["prompts"]],
                   [[{"role": "assistant", "content": c}] for c in d["completions"]], spec=[json.dumps(s) for s in d["specs"]])
nospec = reward_func(d["prompts"], d["completions"])
print(json.dumps({"plain": plain, "conv": conv, "nospec": nospec}))`,
      { prompts: tasks.map((t) => t.prompt), completions, specs: tasks.map((t) => t.spec) },
    );
    const withSpec = tasks.map((t, i) => strong.score({ prompt: t.prompt, completion: completions[i], spec: t.spec }).reward);
    expect(got.plain).toEqual(withSpec);
    expect(got.conv).toEqual(withSpec);
    expect(got.nospec).toEqual(tasks.map((t, i) => strong.score({ prompt: t.prompt, completion: completions[i] }).reward));
    expect(got.plain[2]).toBeGreaterThan(got.plain[0]);
  });

  it("compute_score follows verl's signature", async () => {
    const t = tasks[1];
    const got = await python(
      `import json, sys
from canvasgym_client import compute_score
d = json.load(sys.stdin)
print(json.dumps([compute_score("canvasgym", d["completion"], d["spec"], {"prompt": d["prompt"]}),
                  compute_score("canvasgym", d["completion"], json.dumps(d["spec"]), None),
                  compute_score("canvasgym", "no json", d["spec"])]))`,
      { prompt: t.prompt, completion: answer(t.spec.entities), spec: t.spec },
    );
    expect(got[0]).toBe(strong.score({ prompt: t.prompt, completion: answer(t.spec.entities), spec: t.spec }).reward);
    expect(got[1]).toBe(strong.score({ prompt: '', completion: answer(t.spec.entities), spec: t.spec }).reward);
    expect(got[2]).toBe(0);
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

  it('names the server it cannot reach', async () => {
    const got = await python(
      `import json, os
os.environ["CANVASGYM_URL"] = "http://127.0.0.1:9"
from canvasgym_client import CanvasgymError, reward_func
try:
    reward_func(["p"], ["c"])
except CanvasgymError as e:
    print(json.dumps(str(e)))`,
      {},
    );
    expect(got).toMatch(/cannot reach canvasgym at http:\/\/127.0.0.1:9 \(set CANVASGYM_URL\)/);
  });
});
