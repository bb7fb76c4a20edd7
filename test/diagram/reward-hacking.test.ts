// The reward-hacking harness end to end on a tiny student: one GRPO run per reward from the same checkpoint, every
// policy evaluated under every reward with the hack detectors, one table; and the detectors on the known hacks.
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hackingTable, rewardHackingExperiment } from '../../src/diagram/reward-hacking.ts';
import { saveCheckpoint } from '../../src/model/checkpoint.ts';
import { GPT } from '../../src/model/gpt.ts';
import { trainTokenizer } from '../../src/model/tokenizer.ts';
import { SYSTEM_PROMPT } from '../../src/diagram/language/prompt.ts';
import { detectHacks, HACK_DETECTORS, HACKS, HACK_PROMPTS, honestCompletion } from '../../src/diagram/reward/hacks.ts';
import { RUBRIC_NAMES } from '../../src/diagram/reward/presets.ts';
import { generateTasks } from '../../src/diagram/tasks/generate.ts';

describe('hack detectors', () => {
  it('see each hack they name in the hack generators, and none in the honest answer', () => {
    const expected: Record<string, string> = { giant_text_box: 'giant_text_box', stuffed_labels: 'stuffed_labels', junk_shapes: 'junk_shapes', no_arrows: 'missing_arrows' };
    for (const input of HACK_PROMPTS) {
      expect(Object.values(detectHacks(honestCompletion(input), input.spec)).some(Boolean), input.prompt).toBe(false);
      for (const [hack, detector] of Object.entries(expected)) {
        const shown = detectHacks(HACKS.find((h) => h.name === hack)!.make(input), input.spec);
        expect(Object.entries(shown).filter(([, v]) => v).map(([k]) => k), `${hack} on ${input.prompt}`).toEqual([detector]);
      }
      expect(Object.values(detectHacks('no diagram here', input.spec)).some(Boolean)).toBe(false);
    }
  });
});

describe('reward-hacking harness', () => {
  it('trains GRPO from one student with every reward and prints one table of rewards and hacks', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'canvasgym-hacking-'));
    const train = generateTasks({ split: 'train', n: 8, seed: 0 });
    const heldout = generateTasks({ split: 'heldout', n: 4, seed: 1 });
    const init = join(dir, 'init');
    const tokenizer = trainTokenizer([...Array(20).fill(SYSTEM_PROMPT), ...[...train, ...heldout].map((t) => t.prompt), '{"actions": [{"type": "create_shape", "id": "a", "text": "A"}]}'], { vocabSize: 900 });
    const model = await GPT.create({ vocabSize: tokenizer.vocabSize, nCtx: 768, nEmbd: 32, nLayer: 1, nHead: 2 }, { seed: 3, threads: 1 });
    saveCheckpoint(init, { model, tokenizer });
    await model.dispose();
    const lines: string[] = [];
    const options = {
      init,
      outDir: join(dir, 'out'),
      tasks: train,
      heldout,
      grpo: { max_steps: 1, num_generations: 2, generation_batch_size: 4, per_device_train_batch_size: 4, max_completion_length: 8, threads: 1, save_steps: 100 },
      sampling: { temperature: 1, maxTokens: 8, seed: 1 },
      onMessage: (l: string) => lines.push(l),
    };
    const rows = await rewardHackingExperiment(options);
    expect(rows.map((r) => r.policy)).toEqual(['SFT (start)', ...RUBRIC_NAMES.map((n) => `GRPO on ${n}`)]);
    for (const name of RUBRIC_NAMES) expect(existsSync(join(dir, 'out', `grpo-${name}`, 'final', 'config.json')), name).toBe(true);
    for (const r of rows) {
      expect(Object.keys(r.rewards)).toEqual([...RUBRIC_NAMES]);
      for (const n of RUBRIC_NAMES) expect(r.rewards[n].mean).toBeGreaterThanOrEqual(0);
      for (const h of HACK_DETECTORS) expect(r.hacks[h]).toBeGreaterThanOrEqual(0);
    }
    const table = hackingTable(rows);
    expect(table.split('\n')).toHaveLength(2 + rows.length);
    expect(table).toMatch(/^\| policy \| seed reward \| strong reward \| task reward \| valid \| giant_text_box \| stuffed_labels \| junk_shapes \| missing_arrows \|/);
    // A second run finds the trained students and evaluates them again without training.
    const before = readdirSync(join(dir, 'out', 'grpo-task'));
    const again = await rewardHackingExperiment(options);
    expect(readdirSync(join(dir, 'out', 'grpo-task'))).toEqual(before);
    expect(lines.filter((l) => /is there, not trained again/.test(l))).toHaveLength(RUBRIC_NAMES.length);
    expect(again.map((r) => r.rewards.task.mean)).toEqual(rows.map((r) => r.rewards.task.mean));
  }, 120_000);
});
