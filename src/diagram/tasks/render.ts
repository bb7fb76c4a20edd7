// Writes one task: an instance, a template and a variant become a prompt and the spec it asks for. Every choice
// inside (opener, short names, which edges get labels, noise) is drawn from a hash of the task's coordinates, so a
// task is the same whatever seed or batch it was drawn in, and its id is stable.
import { createHash } from 'node:crypto';
import type { DiagramSpec, Task } from './spec.ts';
import type { Instance } from './instances.ts';
import type { Entity, Vocab } from './scenarios.ts';
import type { Variant } from './difficulty.ts';
import type { Template } from './phrasing-templates.ts';
import type { Ctx } from './phrasing-context.ts';
import { WORDS } from './phrasing-words.ts';
import { hash32, rng, shuffle } from '../../random.ts';

export const edgeKey = (from: string, to: string) => `${from}->${to}`;

/** A stable id: split, kind and a hash of what the task says and asks for. */
export function taskId(split: string, kind: string, prompt: string, spec: DiagramSpec): string {
  const h = createHash('sha1').update(prompt).update('\n').update(JSON.stringify(spec)).digest('hex').slice(0, 12);
  return `${split}-${kind}-${h}`;
}

export function renderTask(split: Vocab, inst: Instance, template: Template, variant: Variant, level: number): Task {
  const words = WORDS[split];
  const r = rng(hash32(`${split}|${inst.scenario.id}|${inst.code}|${template.id}|${variant.labels}|${variant.noise}`));

  const labels = new Map<string, string>();
  if (inst.structure.shape === 'decision') {
    const d = inst.structure;
    labels.set(edgeKey(d.question.name, d.yes[0].name), 'yes');
    labels.set(edgeKey(d.question.name, d.no[0].name), 'no');
  }
  const free = inst.edges.filter(([a, b]) => !labels.has(edgeKey(a.name, b.name)));
  for (const [a, b] of shuffle(r, free).slice(0, variant.labels)) labels.set(edgeKey(a.name, b.name), r.pick(inst.scenario.verbs));

  const useShort = new Set(inst.entities.filter((e) => e.short && r.next() < 0.5).map((e) => e.name));
  const mentioned = new Set<string>();
  const say = (e: Entity) => (useShort.has(e.name) ? e.short! : e.name);
  const ctx: Ctx = {
    split,
    inst,
    topic: inst.scenario.topic,
    open: r.pick(words.open),
    ask: r.pick(words.ask),
    say,
    list: (es) => {
      const s = es.map(say);
      if (s.length <= 2) return s.join(' and ');
      return `${s.slice(0, -1).join(', ')}, and ${s[s.length - 1]}`;
    },
    label: (a, b) => {
      const k = edgeKey(a.name, b.name);
      const l = labels.get(k);
      if (l !== undefined) mentioned.add(k);
      return l;
    },
    pick: (xs) => r.pick(xs),
  };
  let prompt = template.render(ctx);

  const pending = inst.edges.filter(([a, b]) => labels.has(edgeKey(a.name, b.name)) && !mentioned.has(edgeKey(a.name, b.name)));
  if (pending.length > 0) {
    const fill = (pattern: string, [a, b]: [Entity, Entity]) => pattern.replace('{a}', say(a)).replace('{b}', say(b)).replace('{l}', labels.get(edgeKey(a.name, b.name))!);
    const clause =
      pending.length === 1 || r.next() < 0.5
        ? pending.map((e) => fill(r.pick(words.labelOne), e)).join(' ')
        : r.pick(words.labelMany).replace('{list}', pending.map((e) => fill(words.labelItem, e)).join(words.labelJoin));
    prompt = `${prompt}${joiner(prompt)}${clause}`;
  }
  if (variant.noise) prompt = addNoise(prompt, words, r);

  const spec: DiagramSpec = {
    entities: inst.entities.map((e) => e.name),
    edges: inst.edges.map(([a, b]) => [a.name, b.name]),
    kind: inst.kind,
    difficulty: level,
    ...(labels.size > 0 ? { edgeLabels: Object.fromEntries(inst.edges.flatMap(([a, b]) => (labels.has(edgeKey(a.name, b.name)) ? [[edgeKey(a.name, b.name), labels.get(edgeKey(a.name, b.name))!]] : []))) } : {}),
    ...(inst.structure.shape === 'decision' ? { shapes: { [inst.structure.question.name]: 'diamond' as const } } : {}),
  };
  return { id: taskId(split, inst.kind, prompt, spec), prompt, spec };
}

/** How to continue a prompt with another sentence: after a bullet list on a new line, after a sentence with a space. */
function joiner(prompt: string): string {
  if (/\n- [^\n]*$|\n\d+\. [^\n]*$/.test(prompt)) return '\n';
  return /[.?!)]$/.test(prompt) ? ' ' : '. ';
}

/** What a hurried person adds: a greeting, an aside, a sign-off, sometimes everything in lower case. */
function addNoise(prompt: string, words: (typeof WORDS)[keyof typeof WORDS], r: ReturnType<typeof rng>): string {
  const parts = { prefix: r.next() < 0.6, aside: r.next() < 0.5, suffix: r.next() < 0.6 };
  if (!parts.prefix && !parts.aside && !parts.suffix) parts.suffix = true;
  let out = prompt;
  if (parts.prefix) {
    // Lower-case the opener ("hey, draw a ..."), never an entity name the prompt happens to start with.
    const opener = [...words.open, ...words.ask].some((w) => out.startsWith(w));
    out = r.pick(words.prefix) + (opener ? out.charAt(0).toLowerCase() + out.slice(1) : out);
  }
  if (parts.aside) out = `${out}${joiner(out)}${r.pick(words.aside)}`;
  if (parts.suffix) out = out + r.pick(words.suffix);
  return r.next() < 0.3 ? out.toLowerCase() : out;
}
