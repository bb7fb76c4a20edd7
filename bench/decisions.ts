// Where a student's answers go wrong, teacher-forced: the scripted teacher answers IID held-out tasks, each student reads
// the teacher's answer, and for every answer token the bench asks whether the student's most likely next token is the
// teacher's. Tokens are grouped by the decision they make: the first token of a new shape's id (which entity comes
// next), of an arrow's `from` and `to` (which entities an arrow joins), the rest of a name (copying), where a name
// ends, numbers (coordinates and sizes) and the JSON around them. A valid answer needs every id and arrow end right,
// so the groups say which decision holds the student back.
//   npx tsx bench/decisions.ts DIR [DIR...] [--tasks 100] [--seed 4242] [--order teacher|shapes-first]
// DIR: a checkpoint (`runs/NAME/sft/final`, or a cell of bench/learning.ts). --order shapes-first rewrites the teacher's
// answer as bench/learning.ts's `shapesfirst` variant trains on.
import { parseArgs } from 'node:util';
import { renderChat } from '../src/model/chat.ts';
import { loadCheckpoint } from '../src/model/checkpoint.ts';
import { ScriptedPolicy } from '../src/diagram/teacher/scripted.ts';
import { generateTasks } from '../src/diagram/tasks/generate.ts';
import { shapesFirst } from './answer-order.ts';

const { values: args, positionals: dirs } = parseArgs({
  allowPositionals: true,
  options: {
    tasks: { type: 'string', default: '100' },
    seed: { type: 'string', default: '4242' },
    order: { type: 'string', default: 'teacher' },
  },
});
if (dirs.length === 0) throw new Error('name at least one checkpoint directory');
if (!['teacher', 'shapes-first'].includes(args.order!)) throw new Error(`--order must be teacher or shapes-first, got ${args.order}`);

const tasks = generateTasks({ split: 'heldout', n: Number(args.tasks), seed: Number(args.seed) });
const specs = new Map(tasks.map((t) => [t.prompt, t.spec]));
const teacher = new ScriptedPolicy({ specFor: (p) => specs.get(p) });

const answers: string[] = [];
for (const t of tasks) {
  const [[c]] = await teacher.generate([[{ role: 'user', content: t.prompt }]], { temperature: 0, seed: 0 });
  answers.push(args.order === 'shapes-first' ? shapesFirst(c.text) : c.text);
}

/** The string fields whose values are names; the key's token ends with `"field":"`. */
const NAME_FIELD = /"(id|from|to|text)":"$/;

const tables: { dir: string; groups: Map<string, { right: number; all: number }> }[] = [];
for (const dir of dirs) {
  const { model, tokenizer: tok } = await loadCheckpoint(dir);
  const groups = new Map<string, { right: number; all: number }>();
  const count = (group: string, right: boolean) => {
    const g = groups.get(group) ?? { right: 0, all: 0 };
    g.right += right ? 1 : 0;
    g.all++;
    groups.set(group, g);
  };
  const T = model.config.nCtx;
  const V = model.config.vocabSize;
  let skipped = 0;
  for (let k = 0; k < tasks.length; k++) {
    const { ids, mask } = renderChat(tok, [{ role: 'user', content: tasks[k].prompt }, { role: 'assistant', content: answers[k] }]);
    if (ids.length > T) {
      skipped++;
      continue;
    }
    const input = new Int32Array(T);
    input.set(ids);
    const logits = model.logits(input, 1, T);
    let field = '';
    let inName = 0;
    for (let i = 1; i < ids.length; i++) {
      if (!mask[i]) continue;
      const before = tok.decode([ids[i - 1]]);
      const piece = tok.decode([ids[i]]);
      let best = 0;
      for (let v = 1; v < V; v++) if (logits[(i - 1) * V + v] > logits[(i - 1) * V + best]) best = v;
      const m = NAME_FIELD.exec(before);
      if (m) [field, inName] = [m[1], 0];
      let group: string;
      if (field && inName === 0) group = `${field}: first token`;
      else if (field && !piece.startsWith('"')) group = `${field}: rest of the name`;
      else if (field) {
        group = `${field}: where the name ends`;
        field = '';
      } else group = /^\d+$/.test(piece) ? 'numbers' : 'JSON structure';
      inName++;
      count(group, best === ids[i]);
      count('every answer token', best === ids[i]);
    }
  }
  await model.dispose();
  if (skipped) process.stderr.write(`${dir}: ${skipped} answers longer than the context were left out\n`);
  tables.push({ dir, groups });
}

const names = [...new Set(tables.flatMap((t) => [...t.groups.keys()]))].sort();
console.log(`Teacher-forced accuracy (the student's most likely token is the teacher's), ${tasks.length} IID held-out tasks (seed ${args.seed}), ${args.order} order\n`);
/** `runs/default/sft/final` -> `default/sft`, `runs/default/sft/checkpoint-250` -> `sft/checkpoint-250`: the part that
 *  tells the columns apart. */
const label = (dir: string) => dir.replace(/\/$/, '').replace(/\/final$/, '').split('/').slice(-2).join('/');
console.log(`| decision | tokens | ${tables.map((t) => label(t.dir)).join(' | ')} |`);
console.log(`|---|---|${tables.map(() => '---').join('|')}|`);
for (const name of names) {
  const all = tables[0].groups.get(name)?.all ?? 0;
  console.log(`| ${name} | ${all} | ${tables.map((t) => { const g = t.groups.get(name); return g ? `${((100 * g.right) / g.all).toFixed(1)}%` : ''; }).join(' | ')} |`);
}
