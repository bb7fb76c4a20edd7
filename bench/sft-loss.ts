// Where a student's loss sits: each assistant token of some teacher conversations, teacher-forced through a
// checkpoint, is put in one class (JSON structure and keys, numbers, a token that also occurs in the request, other),
// and the script prints per class the token count, mean loss, share of the loss and how often the model's top guess
// is right. A student that copies names gets the request's tokens right; one that does not leaves most of its loss there.
//   npx tsx bench/sft-loss.ts CHECKPOINT_DIR TEACHER_JSONL [ROWS=40]
import { readFileSync } from 'node:fs';
import { loadCheckpoint } from '../src/model/checkpoint.ts';
import { renderChat } from '../src/model/chat.ts';
import type { ChatMessage } from '../src/policy/policy.ts';

const [checkpoint, data, rowsArg] = process.argv.slice(2);
if (!checkpoint || !data) {
  console.error('usage: npx tsx bench/sft-loss.ts CHECKPOINT_DIR TEACHER_JSONL [ROWS=40]');
  process.exit(2);
}
const { model, tokenizer: tok } = await loadCheckpoint(checkpoint, { threads: 2 });
const rows = readFileSync(data, 'utf8')
  .split('\n')
  .filter((l) => l.trim())
  .slice(0, Number(rowsArg ?? 40))
  .map((l) => (JSON.parse(l) as { messages: ChatMessage[] }).messages);

const STRUCTURE = new Set(['create_shape', 'connect', 'rectangle', 'ellipse', 'diamond', 'text']);
const classOf = (piece: string, inRequest: boolean) =>
  /^[0-9]+$/.test(piece) ? 'number' : /["{}:,[\]]/.test(piece) || STRUCTURE.has(piece) ? 'structure' : inRequest ? 'from the request' : 'other';

const totals = new Map<string, { n: number; loss: number; top1: number }>();
const V = model.config.vocabSize;
for (const messages of rows) {
  const { ids, mask } = renderChat(tok, messages);
  const T = Math.min(ids.length, model.config.nCtx);
  const logits = model.logits(Int32Array.from(ids.slice(0, T)), 1, T);
  const request = new Set(tok.encode(messages.find((m) => m.role === 'user')?.content ?? ''));
  for (let t = 0; t + 1 < T; t++) {
    if (!mask[t + 1]) continue;
    const row = logits.subarray(t * V, (t + 1) * V);
    let max = -Infinity;
    let argmax = 0;
    for (let v = 0; v < V; v++) if (row[v] > max) [max, argmax] = [row[v], v];
    let sum = 0;
    for (let v = 0; v < V; v++) sum += Math.exp(row[v] - max);
    const target = ids[t + 1];
    const c = classOf(tok.decode([target]), request.has(target));
    const e = totals.get(c) ?? { n: 0, loss: 0, top1: 0 };
    e.n++;
    e.loss += Math.log(sum) - (row[target] - max);
    e.top1 += argmax === target ? 1 : 0;
    totals.set(c, e);
  }
}
await model.dispose();

const all = [...totals.values()].reduce((a, e) => ({ n: a.n + e.n, loss: a.loss + e.loss }), { n: 0, loss: 0 });
console.log(`${checkpoint} on ${rows.length} conversations of ${data}`);
console.log('class            | tokens | share | mean loss | share of loss | top guess right');
for (const [c, e] of totals) {
  console.log(
    `${c.padEnd(16)} | ${String(e.n).padStart(6)} | ${((100 * e.n) / all.n).toFixed(0).padStart(4)}% | ${(e.loss / e.n).toFixed(2).padStart(9)} | ` +
      `${((100 * e.loss) / all.loss).toFixed(0).padStart(12)}% | ${((100 * e.top1) / e.n).toFixed(0).padStart(14)}%`,
  );
}
