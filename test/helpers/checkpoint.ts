// A random, untrained student saved as a checkpoint: what --init and --policy take, in well under a second. Its
// tokenizer is trained on the system prompt and the given prompts, so rows of those tasks stay short.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GPT } from '../../src/model/gpt.ts';
import { trainTokenizer } from '../../src/model/tokenizer.ts';
import { saveCheckpoint } from '../../src/model/checkpoint.ts';
import { SYSTEM_PROMPT } from '../../src/diagram/language/prompt.ts';

export async function randomCheckpoint(prompts: string[]): Promise<string> {
  const dir = join(mkdtempSync(join(tmpdir(), 'random-checkpoint-')), 'init');
  const corpus = [...Array(40).fill(SYSTEM_PROMPT), ...prompts, '{"actions": [{"type": "create_shape", "id": "a", "text": "A"}]}'];
  const tokenizer = trainTokenizer(corpus, { vocabSize: 700 });
  const model = await GPT.create({ vocabSize: tokenizer.vocabSize, nCtx: 512, nEmbd: 32, nLayer: 1, nHead: 2 }, { seed: 3, threads: 1 });
  saveCheckpoint(dir, { model, tokenizer });
  await model.dispose();
  return dir;
}
