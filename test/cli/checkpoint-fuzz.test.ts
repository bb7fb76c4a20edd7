// Every command that takes a checkpoint, on checkpoints broken the ways folders get broken (a file cut short, bad
// JSON, another dtype or shape, another model type, a file missing). Each must refuse with one line naming a file of
// the checkpoint and exit code 2, before it creates its output folder; none may print a stack trace. In process through runCli.
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { CheckpointError, checkCheckpoint, loadCheckpoint, saveCheckpoint } from '../../src/model/checkpoint.ts';
import { GPT } from '../../src/model/gpt.ts';
import { trainTokenizer } from '../../src/model/tokenizer.ts';
import { SYSTEM_PROMPT } from '../../src/diagram/language/prompt.ts';
import { inProcessCli, ONE_LINE } from '../helpers/cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'checkpoint-fuzz-'));
const good = join(dir, 'good');
const tasksFile = join(dir, 'tasks.jsonl');
const dataFile = join(dir, 'data.jsonl');

beforeAll(async () => {
  const answer = '{"actions": [{"type": "create_shape", "id": "a", "text": "A"}]}';
  const tokenizer = trainTokenizer([...Array(20).fill(SYSTEM_PROMPT), 'Draw Client then API.', answer], { vocabSize: 400 });
  const model = await GPT.create({ vocabSize: tokenizer.vocabSize, nCtx: 512, nEmbd: 16, nLayer: 1, nHead: 2 }, { seed: 1, threads: 1 });
  saveCheckpoint(good, { model, tokenizer, trainerState: { globalStep: 1, epoch: 0, batchInEpoch: 1, maxSteps: 2, seed: 0, args: {} } });
  await model.dispose();
  expect((await inProcessCli(['tasks', '--split', 'train', '--n', '2', '--seed', '5', '--out', tasksFile])).code).toBe(0);
  writeFileSync(dataFile, JSON.stringify({ messages: [{ role: 'user', content: 'Draw A.' }, { role: 'assistant', content: answer }] }) + '\n');
});

/** A copy of the good checkpoint with one file broken (or removed, where `broken` gives undefined). */
interface Breakage {
  name: string;
  file: string;
  broken: (bytes: Buffer) => Buffer | string | undefined;
}

function safetensorsHeader(bytes: Buffer): { header: Record<string, { dtype: string; shape: number[]; data_offsets: number[] }>; rest: Buffer } {
  const n = Number(bytes.readBigUInt64LE(0));
  return { header: JSON.parse(bytes.subarray(8, 8 + n).toString('utf8')), rest: bytes.subarray(8 + n) };
}
function withHeader(header: unknown, rest: Buffer): Buffer {
  const json = Buffer.from(JSON.stringify(header));
  const len = Buffer.alloc(8);
  len.writeBigUInt64LE(BigInt(json.length));
  return Buffer.concat([len, json, rest]);
}
const editHeader = (edit: (h: Record<string, { dtype: string; shape: number[]; data_offsets: number[] }>) => void) => (bytes: Buffer) => {
  const { header, rest } = safetensorsHeader(bytes);
  edit(header);
  return withHeader(header, rest);
};
const editConfig = (edit: (c: Record<string, unknown>) => void) => (bytes: Buffer) => {
  const c = JSON.parse(bytes.toString('utf8')) as Record<string, unknown>;
  edit(c);
  return JSON.stringify(c);
};

const BREAKAGES: Breakage[] = [
  { name: 'safetensors cut to 1,000 bytes', file: 'model.safetensors', broken: (b) => b.subarray(0, 1000) },
  { name: 'safetensors cut inside the data', file: 'model.safetensors', broken: (b) => b.subarray(0, b.length - 100) },
  { name: 'safetensors of 5 bytes', file: 'model.safetensors', broken: (b) => b.subarray(0, 5) },
  { name: 'safetensors header not JSON', file: 'model.safetensors', broken: (b) => withHeader('x', Buffer.alloc(0)).fill(0x7b, 8) },
  { name: 'safetensors header length huge', file: 'model.safetensors', broken: (b) => Buffer.concat([Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f]), b.subarray(8)]) },
  { name: 'a tensor in F16', file: 'model.safetensors', broken: editHeader((h) => (h['transformer.h.0.ln_1.weight'].dtype = 'F16')) },
  { name: 'a tensor of another shape', file: 'model.safetensors', broken: editHeader((h) => (h['transformer.h.0.ln_1.weight'].shape = [8, 2])) },
  { name: 'the embeddings of another shape', file: 'model.safetensors', broken: editHeader((h) => (h['transformer.wte.weight'].shape = h['transformer.wte.weight'].shape.slice().reverse())) },
  { name: 'a tensor missing', file: 'model.safetensors', broken: editHeader((h) => delete h['transformer.h.0.mlp.c_fc.bias']) },
  { name: 'safetensors missing', file: 'model.safetensors', broken: () => undefined },
  { name: 'config {"n_embd": "x"}', file: 'config.json', broken: () => '{"n_embd": "x"}' },
  { name: 'config of another model type', file: 'config.json', broken: editConfig((c) => (c.model_type = 'llama')) },
  { name: 'config claiming a huge model', file: 'config.json', broken: editConfig((c) => (c.n_embd = 1 << 20)) },
  { name: 'config with n_head not dividing n_embd', file: 'config.json', broken: editConfig((c) => (c.n_head = 3)) },
  { name: 'config not JSON', file: 'config.json', broken: (b) => b.subarray(0, 10) },
  { name: 'config binary', file: 'config.json', broken: () => Buffer.from([0, 1, 2, 0xff, 0xfe]) },
  { name: 'tokenizer missing', file: 'tokenizer.json', broken: () => undefined },
  { name: 'tokenizer cut short', file: 'tokenizer.json', broken: (b) => b.subarray(0, b.length >> 1) },
  { name: 'tokenizer of another vocabulary', file: 'tokenizer.json', broken: (b) => JSON.stringify({ ...JSON.parse(b.toString('utf8')), model: { type: 'BPE', vocab: { a: 0 }, merges: [] } }) },
  { name: 'optimizer state cut short', file: 'optimizer.safetensors', broken: (b) => b.subarray(0, 200) },
  { name: 'trainer state not JSON', file: 'trainer_state.json', broken: () => '{"globalStep": ' },
];
/** Breakages of the files only resuming reads. */
const RESUME_ONLY = new Set(['optimizer.safetensors', 'trainer_state.json']);

let cases = 0;
function brokenCopy(b: Breakage, into: string): string {
  cpSync(good, into, { recursive: true });
  const path = join(into, b.file);
  const bytes = b.broken(readFileSync(path));
  if (bytes === undefined) rmSync(path);
  else writeFileSync(path, bytes);
  return into;
}

interface Command {
  name: string;
  /** The command line for a broken checkpoint at `ckpt`; the folder it would create is `out`. */
  args: (ckpt: string, out: string) => string[];
  /** Where the checkpoint goes: the folder named on the command line, or a checkpoint-N inside the output folder. */
  resume?: true;
}
const COMMANDS: Command[] = [
  { name: 'grpo --init', args: (ckpt, out) => ['grpo', '--init', ckpt, '--tasks', tasksFile, '--out', out, '--steps', '1', '--threads', '1', '--no-progress'] },
  { name: 'sft --resume', args: (_, out) => ['sft', '--data', dataFile, '--out', out, '--resume', '--preset', 'tiny', '--threads', '1', '--no-progress'], resume: true },
  { name: 'grpo --resume', args: (_, out) => ['grpo', '--init', good, '--tasks', tasksFile, '--out', out, '--resume', '--threads', '1', '--no-progress'], resume: true },
  { name: 'eval --policy', args: (ckpt, out) => ['eval', '--policy', ckpt, '--tasks', tasksFile, '--out', out, '--no-images', '--no-progress'] },
  { name: 'serve --policy', args: (ckpt) => ['serve', '--policy', ckpt, '--port', '0'] },
];

describe('commands that load a checkpoint, on broken checkpoints', () => {
  it('refuse each with one line naming the file, exit code 2, and no output folder', async () => {
    const misbehaving: string[] = [];
    for (const command of COMMANDS) {
      for (const b of BREAKAGES) {
        if (RESUME_ONLY.has(b.file) && !command.resume) continue;
        const what = `${command.name}, ${b.name}`;
        const out = join(dir, `out-${++cases}`);
        let ckpt: string;
        if (command.resume) {
          mkdirSync(out);
          ckpt = brokenCopy(b, join(out, 'checkpoint-1'));
        } else ckpt = brokenCopy(b, join(dir, `ckpt-${cases}`));
        let r;
        try {
          r = await inProcessCli(command.args(ckpt, out));
        } catch (err) {
          misbehaving.push(`${what}: stack trace: ${String(err).split('\n')[0].slice(0, 200)}`);
          continue;
        }
        if (r.code !== 2) misbehaving.push(`${what}: exit code ${r.code}: ${r.stderr.slice(0, 200)}`);
        else if (!ONE_LINE.test(r.stderr)) misbehaving.push(`${what}: not one line: ${r.stderr.slice(0, 300)}`);
        else if (!r.stderr.includes(`${ckpt}/`) && !r.stderr.includes(`${ckpt} is not a checkpoint`)) misbehaving.push(`${what}: names no file of the checkpoint: ${r.stderr}`);
        if (!command.resume && existsSync(out)) misbehaving.push(`${what}: created ${out}`);
      }
    }
    process.stderr.write(`checkpoint fuzz: ${cases} cases, ${misbehaving.length} misbehaving\n`);
    expect(misbehaving).toEqual([]);
    expect(cases).toBeGreaterThan(90);
  }, 300_000);

  it('loads the good checkpoint, and checkCheckpoint and loadCheckpoint refuse a broken one with a CheckpointError', async () => {
    checkCheckpoint(good);
    const { model } = await loadCheckpoint(good, { withOptimizer: true });
    await model.dispose();
    const broken = brokenCopy(BREAKAGES[0], join(dir, 'lib-broken'));
    expect(() => checkCheckpoint(broken)).toThrow(CheckpointError);
    await expect(loadCheckpoint(broken)).rejects.toThrow(/model\.safetensors: truncated: the header claims \d+ bytes but the file has 992 after the length/);
    copyFileSync(join(good, 'model.safetensors'), join(broken, 'model.safetensors'));
    checkCheckpoint(broken);
  });
});
