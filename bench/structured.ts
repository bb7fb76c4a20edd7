// What structured output costs the student's sampler: the same prompts sampled with and without the action guide, in
// one run, tokens/s side by side; and the guide alone, teacher-forced through the scripted teacher's answers
// (µs per token to work out the allowed set). Without --policy it builds a default-size student with random weights
// and a tokenizer trained on teacher answers: the guide's work depends on the vocabulary and on where the answer is,
// not on what the weights say, though a random model spends more of its tokens inside strings.
//   npx tsx bench/structured.ts [--policy CKPT] [--prompts 32] [--max-tokens 256] [--threads 2] [--seed 0]
import { parseArgs } from 'node:util';
import { GPT, presetConfig } from '../src/model/gpt.ts';
import { trainTokenizer, type Tokenizer } from '../src/model/tokenizer.ts';
import { ScriptedPolicy } from '../src/diagram/teacher/scripted.ts';
import { ActionGuide, actionGuides, GuideVocabulary } from '../src/diagram/language/structured.ts';
import { StudentPolicy } from '../src/policy/student.ts';
import { generateTasks } from '../src/diagram/tasks/generate.ts';

const { values } = parseArgs({
  options: {
    policy: { type: 'string' },
    prompts: { type: 'string', default: '32' },
    'max-tokens': { type: 'string', default: '256' },
    threads: { type: 'string', default: '2' },
    seed: { type: 'string', default: '0' },
  },
});
const nPrompts = Number(values.prompts), maxTokens = Number(values['max-tokens']), threads = Number(values.threads), seed = Number(values.seed);

const tasks = generateTasks({ split: 'heldout', n: nPrompts, seed });
const teacher = new ScriptedPolicy({ specFor: (p) => tasks.find((t) => t.prompt === p)?.spec });
const conversations = tasks.map((t) => [{ role: 'user' as const, content: t.prompt }]);
const answers = (await teacher.generate(conversations)).map((c) => c[0].text);

async function load(): Promise<{ model: GPT; tok: Tokenizer; dispose: () => Promise<void>; what: string }> {
  if (values.policy) {
    const p = await StudentPolicy.load(values.policy, { threads });
    return { model: p.model, tok: p.tokenizer, dispose: () => p.close(), what: values.policy };
  }
  const train = generateTasks({ split: 'train', n: 300, seed: seed + 1 });
  const trainTeacher = new ScriptedPolicy({ specFor: (p) => train.find((t) => t.prompt === p)?.spec });
  const trainAnswers = (await trainTeacher.generate(train.map((t) => [{ role: 'user' as const, content: t.prompt }]))).map((c) => c[0].text);
  const tok = trainTokenizer([...train.map((t) => t.prompt), ...trainAnswers], { vocabSize: 2048 });
  const model = await GPT.create({ ...presetConfig('default', tok.vocabSize), nCtx: 768 }, { seed: 1, threads });
  return { model, tok, dispose: () => model.dispose(), what: `random default-size student, vocabulary ${tok.vocabSize}` };
}

const { model, tok, dispose, what } = await load();
try {
  console.log(`${what}; ${nPrompts} held-out prompts, up to ${maxTokens} new tokens, temperature 0.7, ${threads} threads`);
  const rows: [string, number, number][] = [];
  for (const structuredOutput of [false, true, false, true]) {
    const policy = StudentPolicy.of(model, tok, 'student', { guide: structuredOutput ? actionGuides(tok) : undefined });
    const t0 = performance.now();
    const out = await policy.generate(conversations, { temperature: 0.7, seed: 3, maxTokens });
    const seconds = (performance.now() - t0) / 1000;
    rows.push([structuredOutput ? 'guided' : 'free', out.flat().reduce((s, c) => s + (c.completionTokens ?? 0), 0), seconds]);
  }
  const best = (label: string) => Math.max(...rows.filter((r) => r[0] === label).map((r) => r[1] / r[2]));
  console.log(`sampling   free ${best('free').toFixed(0)} tokens/s   guided ${best('guided').toFixed(0)} tokens/s   guided / free ${(best('guided') / best('free')).toFixed(2)}x (best of 2 each)`);

  const vocab = new GuideVocabulary(tok);
  let tokens = 0;
  const t0 = performance.now();
  for (let round = 0; round < 3; round++) {
    for (const text of answers) {
      const guide = new ActionGuide(vocab);
      for (const id of tok.encode(text)) {
        if (!guide.allowedTokens()[id]) throw new Error(`the guide refuses the teacher's token ${JSON.stringify(tok.decode([id]))} in ${text}`);
        guide.accept(id);
        tokens++;
      }
    }
  }
  const us = ((performance.now() - t0) * 1000) / tokens;
  console.log(`guide alone, teacher-forced over ${answers.length} teacher answers x 3: ${us.toFixed(1)} µs per token (${tokens} tokens)`);
} finally {
  await dispose();
}
