// Where a student's answers break: teacher answers are forced through a checkpoint, and every assistant token is put in
// a class: a closing token (a `"` that ends a string value, with the key or brace after it), a name token inside an
// id, label, `from` or `to` value (its first token apart), a number, other structure. Per class the script prints the
// mean probability of the teacher's token, how often it is the top guess, and how many tokens per answer sampling at
// the given temperature is expected to get wrong there. Then, for the closing and space tokens, where the probability
// the teacher's token does not get goes: the place a name ends is the decision a small student gets wrong most.
//   npx tsx bench/sft-boundaries.ts CHECKPOINT_DIR TEACHER_JSONL [ROWS=80] [TEMPERATURE=0.7]
import { readFileSync } from 'node:fs';
import { loadCheckpoint } from '../src/model/checkpoint.ts';
import { renderChat } from '../src/model/chat.ts';
import type { ChatMessage } from '../src/policy/policy.ts';

const [checkpoint, data, rowsArg, tempArg] = process.argv.slice(2);
if (!checkpoint || !data) {
  console.error('usage: npx tsx bench/sft-boundaries.ts CHECKPOINT_DIR TEACHER_JSONL [ROWS=80] [TEMPERATURE=0.7]');
  process.exit(2);
}
const temperature = Number(tempArg ?? 0.7);
const { model, tokenizer: tok } = await loadCheckpoint(checkpoint, { threads: 2 });
const conversations = readFileSync(data, 'utf8')
  .split('\n')
  .filter((l) => l.trim())
  .slice(0, Number(rowsArg ?? 80))
  .map((l) => (JSON.parse(l) as { messages: ChatMessage[] }).messages);

interface Tally { n: number; p: number; top1: number; sampledErrors: number }
const classes = new Map<string, Tally>();
const lostTo = new Map<string, Map<string, number>>();
const V = model.config.vocabSize;

for (const messages of conversations) {
  const { ids, mask } = renderChat(tok, messages);
  const T = Math.min(ids.length, model.config.nCtx);
  const logits = model.logits(Int32Array.from(ids.slice(0, T)), 1, T);
  let role = '';
  let firstOfValue = false;
  for (let t = 0; t + 1 < T; t++) {
    const current = tok.decode([ids[t]]);
    const key = /"(id|text|from|to)":"$/.exec(current);
    if (key) [role, firstOfValue] = [key[1], true];
    else if (current.startsWith('"')) role = '';
    if (!mask[t + 1]) continue;
    const row = logits.subarray(t * V, (t + 1) * V);
    let max = -Infinity, top = 0;
    for (let v = 0; v < V; v++) if (row[v] > max) [max, top] = [row[v], v];
    let z = 0, zt = 0;
    for (let v = 0; v < V; v++) {
      z += Math.exp(row[v] - max);
      zt += Math.exp((row[v] - max) / temperature);
    }
    const target = ids[t + 1];
    const piece = tok.decode([target]);
    const name = piece.startsWith('"') ? `closing ${piece}`
      : role ? `${role} value, ${firstOfValue ? 'first token' : 'later token'}`
      : /^[0-9]+$/.test(piece) ? 'number' : 'other structure';
    firstOfValue = false;
    const c = classes.get(name) ?? { n: 0, p: 0, top1: 0, sampledErrors: 0 };
    c.n++;
    c.p += Math.exp(row[target] - max) / z;
    c.top1 += top === target ? 1 : 0;
    c.sampledErrors += 1 - Math.exp((row[target] - max) / temperature) / zt;
    classes.set(name, c);
    if (piece.startsWith('"') || piece === ' ') {
      const lost = lostTo.get(piece) ?? new Map<string, number>();
      for (let v = 0; v < V; v++) {
        if (v === target) continue;
        const p = Math.exp(row[v] - max) / z;
        if (p > 0.01) lost.set(tok.decode([v]), (lost.get(tok.decode([v])) ?? 0) + p);
      }
      lostTo.set(piece, lost);
    }
  }
}
await model.dispose();

const answers = conversations.length;
console.log(`${checkpoint} on ${answers} answers of ${data}, temperature ${temperature}`);
console.log('class                              | tokens per answer | mean p | top guess right | sampled errors per answer');
for (const [name, c] of [...classes].sort((a, b) => b[1].sampledErrors - a[1].sampledErrors)) {
  console.log(`${name.padEnd(34)} | ${(c.n / answers).toFixed(1).padStart(17)} | ${(c.p / c.n).toFixed(3)} | ${(c.top1 / c.n).toFixed(3).padStart(15)} | ${(c.sampledErrors / answers).toFixed(2).padStart(25)}`);
}
console.log('\nwhere the probability the teacher token does not get goes (summed over its occurrences, per answer):');
for (const [piece, lost] of lostTo) {
  const top = [...lost].sort((a, b) => b[1] - a[1]).slice(0, 4).map(([k, p]) => `${JSON.stringify(k)} ${(p / answers).toFixed(2)}`);
  console.log(`  ${JSON.stringify(piece).padEnd(18)} -> ${top.join(', ')}`);
}
