// Tasks whose entities carry made-up names ("Brelix Dorn" instead of "Auth Service"), for training data.
// A student trained from scratch on the real vocabulary memorises its few hundred names and writes them whatever the
// request says; names it cannot have seen before leave copying from the request as the only way to lower the loss,
// and copying is what held-out tasks need.
import type { DiagramSpec, Task } from './spec.ts';
import { taskId } from './render.ts';
import { VOCABS, vocabOf, type Split, type Vocab } from './scenarios.ts';
import { rng, hash32, type Rng } from '../../random.ts';
import { entityNames } from './stats.ts';
import { mentionRegExp } from './mentions.ts';

const ONSETS = ['b', 'br', 'c', 'd', 'dr', 'f', 'g', 'gr', 'h', 'j', 'k', 'l', 'm', 'n', 'p', 'pl', 'r', 's', 'sh', 'st', 't', 'tr', 'v', 'w', 'z'];
const VOWELS = ['a', 'e', 'i', 'o', 'u', 'a', 'e', 'o', 'ai', 'ou', 'y'];
const CODAS = ['', '', '', 'n', 'r', 's', 'l', 'x', 'nd', 'rk', 'm', 't'];

function pseudoWord(r: Rng): string {
  const syllables = r.next() < 0.6 ? 2 : r.next() < 0.5 ? 1 : 3;
  let w = '';
  for (let i = 0; i < syllables; i++) w += r.pick(ONSETS) + r.pick(VOWELS) + r.pick(CODAS);
  return w;
}

const title = (w: string) => w.charAt(0).toUpperCase() + w.slice(1);

/** Words of the split's own entity names ("Service", "Queue"): names mix them with made-up words, as real names do. */
const realWords = new Map<Vocab, string[]>();
function wordsOf(split: Vocab): string[] {
  let words = realWords.get(split);
  if (!words) {
    words = [...new Set([...entityNames(split)].flatMap((n) => n.split(/\s+/)).filter((w) => /^\p{L}{3,}$/u.test(w)))].sort();
    realWords.set(split, words);
  }
  return words;
}

/** A name of one to three words, made-up or taken from the split's names; mostly in title case, sometimes an acronym
 *  or numbered, like real ones. */
export function syntheticName(r: Rng, split: Vocab): string {
  const count = r.next() < 0.35 ? 1 : r.next() < 0.7 ? 2 : 3;
  const words = Array.from({ length: count }, (_, i) => (i > 0 && r.next() < 0.5 ? r.pick(wordsOf(split)).toLowerCase() : pseudoWord(r)));
  const style = r.next();
  if (style < 0.08) return pseudoWord(r).slice(0, 2 + r.int(3)).toUpperCase();
  if (style < 0.16) return `${words.map(title).join(' ')} ${1 + r.int(9)}`;
  if (style < 0.24) return words.join(' ');
  return words.map(title).join(' ');
}

let allRealNames: Set<string> | undefined;
const realNames = () => (allRealNames ??= new Set(VOCABS.flatMap((s) => [...entityNames(s)].map((n) => n.toLowerCase()))));

/** One made-up name in ten belongs to the held-out pool, by a hash of the name: training tasks never take one and
 *  held-out tasks take only those, so that the two share no name whatever their seeds. */
export const inHeldoutPool = (name: string): boolean => hash32(`name-pool|${name.toLowerCase()}`) % 10 === 0;

/** The same task with every entity the prompt names in full renamed, in the prompt and in the spec. An entity the
 *  prompt only calls by a short form ("DB") keeps its name, since the prompt would no longer name it. A lower-case
 *  mention gets the new name in lower case. */
export function withSyntheticNames(task: Task, split: Split, seed: number): Task {
  const r = rng(hash32(`${seed}|${task.id}`));
  const { prompt, spec } = task;
  const named = spec.entities.filter((e) => mentionRegExp([e]).test(prompt));
  if (named.length === 0) return task;
  const taken = new Set(spec.entities.map((e) => e.toLowerCase()));
  const real = realNames();
  const rename = new Map<string, string>();
  for (const e of named) {
    const heldout = split === 'heldout';
    const unusable = (name: string) => taken.has(name.toLowerCase()) || real.has(name.toLowerCase()) || inHeldoutPool(name) !== heldout;
    // Never a real name of either vocabulary, nor one of the other pool: a held-out name must stay unseen in training.
    let fresh = syntheticName(r, vocabOf(split));
    while (unusable(fresh)) fresh = syntheticName(r, vocabOf(split));
    taken.add(fresh.toLowerCase());
    rename.set(e.toLowerCase(), fresh);
  }
  // Longest first, so that "API Gateway" is renamed as a whole before "API" could match inside it.
  const mention = mentionRegExp([...named].sort((a, b) => b.length - a.length), 'giu');
  const renamedPrompt = prompt.replace(mention, (m) => {
    const fresh = rename.get(m.toLowerCase())!;
    return m === m.toLowerCase() && m !== m.toUpperCase() ? fresh.toLowerCase() : fresh;
  });
  const name = (e: string) => rename.get(e.toLowerCase()) ?? e;
  const rekey = <T>(record: Record<string, T> | undefined, key: (k: string) => string) =>
    record && Object.fromEntries(Object.entries(record).map(([k, v]) => [key(k), v]));
  const renamedSpec: DiagramSpec = {
    ...spec,
    entities: spec.entities.map(name),
    edges: spec.edges.map(([a, b]) => [name(a), name(b)]),
    ...(spec.edgeLabels ? { edgeLabels: rekey(spec.edgeLabels, (k) => k.split('->').map(name).join('->')) } : {}),
    ...(spec.shapes ? { shapes: rekey(spec.shapes, name) } : {}),
  };
  return { id: taskId(split, spec.kind ?? 'task', renamedPrompt, renamedSpec), prompt: renamedPrompt, spec: renamedSpec };
}
