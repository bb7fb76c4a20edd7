// Teacher data: accepted rows that re-score above the threshold, rejected rows with their errors, a summary, and a
// run that survives SIGKILL and resumes without duplicate or lost rows.
import { spawn, spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { getRubric } from '../../../src/diagram/reward/presets.ts';
import { generateTasks } from '../../../src/diagram/tasks/generate.ts';
import { SYSTEM_PROMPT } from '../../../src/diagram/language/prompt.ts';
import { OpenAIPolicy } from '../../../src/policy/openai.ts';
import { responseJsonSchema } from '../../../src/diagram/language/actions.ts';
import { ScriptedPolicy } from '../../../src/diagram/teacher/scripted.ts';
import { errorKind, runTeacher, type RejectedRow, type TeacherConfig, type TrainRow } from '../../../src/diagram/teacher/teacher.ts';
import { startServer } from '../../helpers/http-server.ts';
import { startOpenAIServer } from '../../helpers/openai-server.ts';
import { buildProgram } from '../../../src/cli/main.ts';
import { UsageError } from '../../../src/cli/usage-error.ts';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const work = mkdtempSync(join(tmpdir(), 'canvasgym-teacher-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const strong = getRubric('strong');
/** The rows a JSONL file holds: lines ended by a newline (a last line without one is a write still under way, or
 *  one torn by a kill, which the teacher cuts off when it resumes). */
const rows = <T>(path: string): T[] =>
  existsSync(path)
    ? readFileSync(path, 'utf8')
        .split('\n')
        .slice(0, -1)
        .filter(Boolean)
        .map((l) => JSON.parse(l) as T)
    : [];
const config = (over: Partial<TeacherConfig> = {}): TeacherConfig => ({
  policy: 'scripted',
  attempts: 2,
  minReward: 0.6,
  seed: 0,
  temperature: 1,
  reward: 'strong',
  walk: false,
  quirks: {},
  ...over,
});

function cli(args: string[]) {
  return spawnSync(process.execPath, ['bin/canvasgym.js', 'teacher', ...args], { cwd: ROOT, encoding: 'utf8' });
}

describe('runTeacher', () => {
  it('keeps passing attempts as chat rows that re-score above the threshold, and writes a summary', async () => {
    const tasks = generateTasks({ split: 'train', n: 6, seed: 3 });
    const out = join(work, 'scripted');
    const specs = new Map(tasks.map((t) => [t.prompt, t.spec]));
    const summary = await runTeacher({
      policy: new ScriptedPolicy({ specFor: (p) => specs.get(p), quirks: { prose: 0.5 } }),
      rubric: strong,
      tasks,
      outDir: out,
      config: config({ quirks: { prose: 0.5 } }),
    });
    const train = rows<TrainRow>(join(out, 'train.jsonl'));
    const rejected = rows<RejectedRow>(join(out, 'rejected.jsonl'));
    expect(train.length + rejected.length).toBe(12);
    expect(train.length).toBeGreaterThan(0);
    for (const row of train) {
      const task = tasks.find((t) => t.id === row.task_id)!;
      expect(row.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant']);
      expect(row.messages[0].content).toBe(SYSTEM_PROMPT);
      expect(row.messages[1].content).toBe(task.prompt);
      const again = strong.score({ prompt: task.prompt, completion: row.messages[2].content, spec: task.spec });
      expect(again.reward).toBeCloseTo(row.reward, 10);
      expect(again.reward).toBeGreaterThanOrEqual(0.6);
    }
    expect(summary).toMatchObject({ accepted: train.length, rejected: rejected.length, total: 12, failed: 0 });
    expect(JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'))).toEqual(summary);
    expect(summary.reward.histogram.reduce((a, b) => a + b, 0)).toBe(12);
    expect((summary.quirks.accepted.prose ?? 0) + (summary.quirks.rejected.prose ?? 0)).toBeGreaterThan(0);
  });

  it('rejects what a remote teacher gets wrong, with its errors, and counts the top error kinds', async () => {
    const tasks = generateTasks({ split: 'train', n: 3, seed: 5 });
    const good = new ScriptedPolicy({ specFor: (p) => tasks.find((t) => t.prompt === p)?.spec });
    const answers = new Map<string, string>();
    for (const t of tasks) answers.set(t.prompt, (await good.generate([[{ role: 'user', content: t.prompt }]]))[0][0].text);
    // Choice 0 is a good diagram, choice 1 prose without JSON, choice 2 connects a shape that does not exist.
    const server = await startOpenAIServer({
      model: 'teacher',
      apiKey: 'k',
      reply: (req, i) => {
        const good = answers.get(req.messages[1].content)!;
        if (i === 1) return 'Sorry, I cannot draw diagrams.';
        if (i === 2) return good.replace(/"to":"[^"]+"/, '"to":"ghost"');
        return good;
      },
    });
    try {
      const out = join(work, 'remote');
      const summary = await runTeacher({
        policy: new OpenAIPolicy({ model: 'teacher', baseURL: `${server.url}/v1`, apiKey: 'k', responseSchema: { name: 'diagram_actions', schema: responseJsonSchema() }, env: {} }),
        rubric: strong,
        tasks,
        outDir: out,
        config: config({ policy: 'openai:teacher', attempts: 3 }),
      });
      expect(summary).toMatchObject({ accepted: 3, rejected: 6 });
      const rejected = rows<RejectedRow>(join(out, 'rejected.jsonl'));
      expect(rejected.filter((r) => r.attempt === 1).every((r) => r.errors[0] === 'model output does not contain JSON' && r.reward === 0)).toBe(true);
      expect(rejected.filter((r) => r.attempt === 2).every((r) => /arrow target does not exist: ghost/.test(r.errors[0]))).toBe(true);
      expect(rejected[0]).toHaveProperty('components.parses_json');
      expect(summary.top_errors).toEqual([
        { message: 'action N: arrow target does not exist: ...', count: 3 },
        { message: 'model output does not contain JSON', count: 3 },
      ]);
      expect(server.requests.every((r) => (r.body as { n: number }).n === 3)).toBe(true);
    } finally {
      await server.close();
    }
  });

  it('groups error messages by kind', () => {
    expect(errorKind('action 12: unknown shape type: "hexagon"')).toBe('action N: unknown shape type: "..."');
  });
});

describe('canvasgym teacher', () => {
  const tasks = generateTasks({ split: 'train', n: 16, seed: 11 });
  const tasksFile = join(work, 'tasks.jsonl');
  writeFileSync(tasksFile, tasks.map((t) => JSON.stringify(t)).join('\n') + '\n');
  const quirks = { abbrev: 0.3, prose: 0.3 };
  const args = (out: string) => ['--tasks', tasksFile, '--out', out, '--attempts', '3', '--batch-size', '1', '--no-progress', '--quirks', 'abbrev=0.3,prose=0.3'];
  const dataset = (out: string) =>
    [...rows<TrainRow>(join(out, 'train.jsonl')), ...rows<RejectedRow>(join(out, 'rejected.jsonl'))]
      .map((r) => JSON.stringify(r))
      .sort();
  const run = async (argv: string[]) => (await buildProgram()).parseAsync(['node', 'canvasgym', 'teacher', ...argv]);

  it('resumes after SIGKILL with no duplicate and no lost row, matching an uninterrupted run', async () => {
    const reference = join(work, 'ref');
    const specs = new Map(tasks.map((t) => [t.prompt, t.spec]));
    await runTeacher({
      policy: new ScriptedPolicy({ specFor: (p) => specs.get(p), quirks }),
      rubric: strong,
      tasks,
      outDir: reference,
      batchSize: 1,
      config: config({ attempts: 3, quirks }),
    });
    const expected = dataset(reference);
    expect(expected).toHaveLength(48);

    const out = join(work, 'killed');
    const child = spawn(process.execPath, ['bin/canvasgym.js', 'teacher', ...args(out)], { cwd: ROOT, stdio: 'ignore' });
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
    // Kill once some rows are on disk, well before the end.
    for (let i = 0; i < 3000 && dataset(out).length < 8; i++) await new Promise((r) => setTimeout(r, 10));
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    const before = dataset(out).length;
    expect(before).toBeGreaterThanOrEqual(8);
    expect(before).toBeLessThan(48);
    // A row torn by the kill: the rerun must cut it off, not choke on it or keep it.
    appendFileSync(join(out, 'train.jsonl'), '{"messages":[{"role":"sys');

    const rerun = cli(args(out));
    expect(rerun.status, rerun.stderr).toBe(0);
    expect(rerun.stdout).toContain(`resumed: ${before} attempts were already on disk`);
    expect(rerun.stdout).toMatch(/teacher: \d+ accepted, \d+ rejected .* of 48 task attempts/);
    const after = dataset(out);
    expect(after).toEqual(expected);
    const keys = after.map((l) => {
      const r = JSON.parse(l) as { task_id: string; attempt: number };
      return `${r.task_id}/${r.attempt}`;
    });
    expect(new Set(keys).size).toBe(48);
  }, 120_000);

  it('refuses to resume a directory with other settings, and bad input, as usage errors naming the flag', async () => {
    await expect(run([...args(join(work, 'ref')), '--min-reward', '0.9'])).rejects.toThrow(/holds a run with other settings \(minReward 0.6 -> 0.9\)/);
    // A run written before the walk existed names no walk: it did not walk, and it resumes with the default.
    const old = join(work, 'before-walk');
    mkdirSync(old);
    const config: Partial<TeacherConfig> = JSON.parse(readFileSync(join(work, 'ref', 'run.json'), 'utf8'));
    delete config.walk;
    writeFileSync(join(old, 'run.json'), JSON.stringify(config));
    await run(args(old));
    await expect(run([...args(old), '--walk'])).rejects.toThrow(/other settings \(walk false -> true\)/);
    const bad = join(work, 'bad.jsonl');
    writeFileSync(bad, `${JSON.stringify(tasks[0])}\n{"id":"x"}\n`);
    await expect(run(['--tasks', bad, '--out', join(work, 'bad')])).rejects.toThrow(/bad.jsonl line 2: not a task: prompt/);
    await expect(run(['--tasks', tasksFile, '--out', join(work, 'q'), '--quirks', 'loud=1'])).rejects.toThrow(/--quirks: unknown quirk "loud"/);
    await expect(run(['--tasks', tasksFile, '--out', join(work, 'q'), '--policy', 'claude:x'])).rejects.toThrow(/--policy: unknown policy "claude:x"/);
    await expect(run(['--tasks', tasksFile, '--out', join(work, 'q'), '--policy', 'openai:m', '--quirks', 'abbrev=1'])).rejects.toThrow(UsageError);
    await expect(run(['--tasks', tasksFile, '--out', join(work, 'q'), '--attempts', '0'])).rejects.toThrow(/--attempts must be a positive integer/);
  });

  it('answers bare prompts, as {id?, prompt} rows or plain text one a line, with the spec read from the prompt', async () => {
    const prompts = ['Draw Client -> API -> Database.', 'A pipeline: Ingest, Clean, Train, Deploy.', 'Auth calls Users and Billing.'];
    const jsonl = join(work, 'prompts.jsonl');
    writeFileSync(jsonl, `${JSON.stringify({ id: 'mine', prompt: prompts[0] })}\n\n${JSON.stringify({ prompt: prompts[1] })}\n`);
    const text = join(work, 'prompts.txt');
    writeFileSync(text, `${prompts[1]}\r\n\n  ${prompts[2]}  \n`);
    for (const [file, ids] of [[jsonl, ['line-3', 'mine']], [text, ['line-1', 'line-3']]] as const) {
      const out = join(work, `bare-${ids[1]}`);
      await run(['--tasks', file, '--out', out, '--attempts', '1', '--no-progress']);
      const done = [...rows<TrainRow>(join(out, 'train.jsonl')), ...rows<RejectedRow>(join(out, 'rejected.jsonl'))];
      expect(done.map((r) => r.task_id).sort()).toEqual([...ids]);
      expect(rows<TrainRow>(join(out, 'train.jsonl')).length).toBeGreaterThan(0);
    }
    const users = rows<TrainRow>(join(work, 'bare-line-3', 'train.jsonl')).map((r) => r.messages[1].content);
    for (const u of users) expect([prompts[1], prompts[2]]).toContain(u);
  });

  it('exits 1 with one line when no row was accepted, saying how many attempts failed', async () => {
    // Every request fails the way a retry would help with: each completion is counted as failed, none is fatal.
    const server = await startServer(() => ({ status: 503, body: { error: { message: 'overloaded', type: 'server_error', code: null } } }));
    try {
      const args = ['--tasks', tasksFile, '--out', join(work, 'down'), '--attempts', '1', '--no-progress', '--policy', 'openai:m', '--api-key', 'k', '--base-url', `${server.url}/v1`, '--max-retries', '0'];
      const r = await new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, ['bin/canvasgym.js', 'teacher', ...args], { cwd: ROOT });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (d: Buffer) => (stdout += d));
        child.stderr.on('data', (d: Buffer) => (stderr += d));
        child.on('close', (status) => resolve({ status, stdout, stderr }));
      });
      expect(r.status, r.stderr).toBe(1);
      expect(r.stdout).toMatch(/^teacher: 0 accepted, 0 rejected .* of 16 task attempts; 16 failed to generate/);
      expect(r.stderr).toBe('canvasgym teacher: no row accepted: 16 of 16 attempts failed to generate, 0 rejected\n');
    } finally {
      await server.close();
    }
  });
});
