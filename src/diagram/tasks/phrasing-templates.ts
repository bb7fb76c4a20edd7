// Phrasing templates: each writes a whole request for one instance. Train and held-out templates are separate lists
// with separate wording, so a held-out score measures phrasing the model never saw. Add a template by adding an entry;
// its id must be unique, and it must mention every entity and every edge of the instance.
import type { DiagramKind } from './spec.ts';
import type { Entity, Vocab } from './scenarios.ts';
import { article, bySource, numberWord, paths, stepWord, structureOf, type Ctx } from './phrasing-context.ts';

export type Style = 'imperative' | 'question' | 'casual' | 'terse' | 'arrows' | 'sequence' | 'bullets' | 'edge list';

export interface Template {
  id: string;
  split: Vocab;
  style: Style;
  kinds: readonly DiagramKind[];
  render(c: Ctx): string;
}

/** Kinds whose prompt can be written as plain edges: a decision needs its diamond and yes/no named, so it is not here. */
const GRAPH_KINDS: readonly DiagramKind[] = ['chain', 'fan_out', 'fan_in', 'tree', 'cycle', 'layered', 'mixed'];

const names = (c: Ctx, es: Entity[]) => es.map((e) => c.say(e));
const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
const low = (s: string) => s.charAt(0).toLowerCase() + s.slice(1);
/** "A, then B, then C" */
const thenChain = (c: Ctx, es: Entity[]) => names(c, es).join(', then ');
const arrowChain = (c: Ctx, es: Entity[], arrow: string) => names(c, es).join(` ${arrow} `);

const TRAIN: Omit<Template, 'split'>[] = [
  // chain
  { id: 'chain-steps', style: 'imperative', kinds: ['chain'], render: (c) => `${c.open} ${article(`${numberWord(c.inst.entities.length)} step ${c.topic}`)} pipeline: ${c.list(c.inst.entities)}.` },
  {
    id: 'chain-first-then',
    style: 'sequence',
    kinds: ['chain'],
    render: (c) => {
      const s = names(c, c.inst.entities);
      const mid = s.slice(1, -1).map((x) => `then ${x}, `).join('');
      return `${c.open} ${article(c.topic)} flow. First ${s[0]}, ${mid}and finally ${s[s.length - 1]}.`;
    },
  },
  { id: 'chain-question', style: 'question', kinds: ['chain'], render: (c) => `${c.ask} ${article(c.topic)} flowchart that goes from ${names(c, c.inst.entities).join(' to ')}?` },
  { id: 'chain-in-order', style: 'terse', kinds: ['chain'], render: (c) => `${cap(c.topic)} flow, in order: ${c.list(c.inst.entities)}.` },
  { id: 'chain-bullets', style: 'bullets', kinds: ['chain'], render: (c) => `${c.open} ${article(c.topic)} diagram with these steps in order:\n${names(c, c.inst.entities).map((x) => `- ${x}`).join('\n')}` },
  {
    id: 'chain-casual',
    style: 'casual',
    kinds: ['chain'],
    render: (c) => {
      const s = c.inst.entities;
      const mid = s.length > 2 ? `, goes through ${c.list(s.slice(1, -1))},` : '';
      return `need a quick sketch of our ${c.topic}: it starts at ${c.say(s[0])}${mid} and ends at ${c.say(s[s.length - 1])}`;
    },
  },
  // cycle
  {
    id: 'cycle-back',
    style: 'imperative',
    kinds: ['cycle'],
    render: (c) => `${c.open} a cycle diagram of ${c.topic}: ${names(c, structureOf(c, 'sequence').steps).join(', ')}, and back to ${c.say(c.inst.entities[0])}.`,
  },
  {
    id: 'cycle-state-machine',
    style: 'sequence',
    kinds: ['cycle'],
    render: (c) => {
      const s = names(c, structureOf(c, 'sequence').steps);
      const hops = s.slice(1).map((x, i) => (i === 0 ? `${s[0]} goes to ${x}` : `${s[i]} to ${x}`));
      return `${c.open} a state machine for ${c.topic} with states ${c.list(c.inst.entities)}. ${hops.join(', ')}, and ${s[s.length - 1]} loops back to ${s[0]}.`;
    },
  },
  {
    id: 'cycle-question',
    style: 'question',
    kinds: ['cycle'],
    render: (c) => {
      const s = names(c, structureOf(c, 'sequence').steps);
      return `${c.ask} the ${c.topic} loop? It goes ${s.join(', then ')}, then around to ${s[0]} again.`;
    },
  },
  {
    id: 'cycle-terse',
    style: 'terse',
    kinds: ['cycle'],
    render: (c) => {
      const s = names(c, structureOf(c, 'sequence').steps);
      return `${c.topic} loop: ${[...s, s[0]].join(' > ')}`;
    },
  },
  // fan-out
  {
    id: 'fan-out-hub',
    style: 'imperative',
    kinds: ['fan_out'],
    render: (c) => {
      const s = structureOf(c, 'star');
      return `${c.open} a hub-and-spoke diagram with ${c.say(s.center)} in the middle, connected out to ${c.list(s.members)}.`;
    },
  },
  {
    id: 'fan-out-sends',
    style: 'imperative',
    kinds: ['fan_out'],
    render: (c) => {
      const s = structureOf(c, 'star');
      return `${c.open} ${article(c.topic)} diagram: ${c.say(s.center)} sends to ${c.list(s.members)}.`;
    },
  },
  {
    id: 'fan-out-question',
    style: 'question',
    kinds: ['fan_out'],
    render: (c) => {
      const s = structureOf(c, 'star');
      return `${c.ask} a diagram of how ${c.say(s.center)} fans out to ${c.list(s.members)}?`;
    },
  },
  {
    id: 'fan-out-bullets',
    style: 'bullets',
    kinds: ['fan_out'],
    render: (c) => {
      const s = structureOf(c, 'star');
      return `${c.open} ${article(c.topic)} diagram. ${c.say(s.center)} has an arrow to each of:\n${names(c, s.members).map((x) => `- ${x}`).join('\n')}`;
    },
  },
  // fan-in
  {
    id: 'fan-in-feed',
    style: 'imperative',
    kinds: ['fan_in'],
    render: (c) => {
      const s = structureOf(c, 'star');
      return `${c.open} a diagram where ${c.list(s.members)} all feed into ${c.say(s.center)}.`;
    },
  },
  {
    id: 'fan-in-each',
    style: 'casual',
    kinds: ['fan_in'],
    render: (c) => {
      const s = structureOf(c, 'star');
      return `for the ${c.topic}: ${c.list(s.members)} each send to ${c.say(s.center)}. can you draw that`;
    },
  },
  {
    id: 'fan-in-question',
    style: 'question',
    kinds: ['fan_in'],
    render: (c) => {
      const s = structureOf(c, 'star');
      return `${c.ask} a diagram showing ${c.list(s.members)} converging on ${c.say(s.center)}?`;
    },
  },
  {
    id: 'fan-in-bullets',
    style: 'bullets',
    kinds: ['fan_in'],
    render: (c) => {
      const s = structureOf(c, 'star');
      return `${c.open} ${article(c.topic)} diagram with arrows into ${c.say(s.center)} from:\n${names(c, s.members).map((x) => `- ${x}`).join('\n')}`;
    },
  },
  // tree
  {
    id: 'tree-under',
    style: 'imperative',
    kinds: ['tree'],
    render: (c) => {
      const t = structureOf(c, 'tree');
      const under = t.children.filter((k) => k.children.length > 0).map((k) => `; under ${c.say(k.node)}: ${c.list(k.children)}`);
      return `${c.open} ${article(c.topic)} hierarchy: ${c.say(t.root)} at the top; under ${c.say(t.root)}: ${c.list(t.children.map((k) => k.node))}${under.join('')}.`;
    },
  },
  {
    id: 'tree-bullets',
    style: 'bullets',
    kinds: ['tree'],
    render: (c) => {
      const t = structureOf(c, 'tree');
      const lines = [`- ${c.say(t.root)}`, ...t.children.flatMap((k) => [`  - ${c.say(k.node)}`, ...k.children.map((g) => `    - ${c.say(g)}`)])];
      return `${c.open} a tree diagram for ${c.topic}:\n${lines.join('\n')}`;
    },
  },
  {
    id: 'tree-has',
    style: 'sequence',
    kinds: ['tree'],
    render: (c) => {
      const t = structureOf(c, 'tree');
      const more = t.children.filter((k) => k.children.length > 0).map((k) => ` ${c.say(k.node)} has ${c.list(k.children)}.`);
      return `${c.say(t.root)} has ${numberWord(t.children.length)} children: ${c.list(t.children.map((k) => k.node))}.${more.join('')} ${c.open} the whole thing as ${article(c.topic)} tree.`;
    },
  },
  {
    id: 'tree-question',
    style: 'question',
    kinds: ['tree'],
    render: (c) => {
      const t = structureOf(c, 'tree');
      const more = t.children.filter((k) => k.children.length > 0).map((k) => `${c.say(k.node)} branches into ${c.list(k.children)}`);
      return `${c.ask} a hierarchy with ${c.say(t.root)} at the root, branching into ${c.list(t.children.map((k) => k.node))}${more.length ? `, where ${more.join(' and ')}` : ''}?`;
    },
  },
  // decision
  {
    id: 'decision-flow',
    style: 'sequence',
    kinds: ['decision'],
    render: (c) => {
      const d = structureOf(c, 'decision');
      c.label(d.question, d.yes[0]);
      c.label(d.question, d.no[0]);
      const start = d.before.length ? `start with ${thenChain(c, d.before)}, then the decision "${c.say(d.question)}"` : `start with the decision "${c.say(d.question)}"`;
      return `${c.open} a flowchart for ${c.topic}: ${start}. If yes, go to ${thenChain(c, d.yes)}; if no, go to ${thenChain(c, d.no)}. Draw the decision as a diamond and label the branches yes and no.`;
    },
  },
  {
    id: 'decision-diamond',
    style: 'imperative',
    kinds: ['decision'],
    render: (c) => {
      const d = structureOf(c, 'decision');
      c.label(d.question, d.yes[0]);
      c.label(d.question, d.no[0]);
      const start = d.before.length ? `: ${thenChain(c, d.before)}, and then a diamond "${c.say(d.question)}"` : ` starting at a diamond "${c.say(d.question)}"`;
      return `${c.open} a decision diagram${start}. The arrow labelled yes leads to ${thenChain(c, d.yes)}, and the arrow labelled no leads to ${thenChain(c, d.no)}.`;
    },
  },
  {
    id: 'decision-question',
    style: 'question',
    kinds: ['decision'],
    render: (c) => {
      const d = structureOf(c, 'decision');
      c.label(d.question, d.yes[0]);
      c.label(d.question, d.no[0]);
      const before = d.before.length ? ` Before it: ${thenChain(c, d.before)}.` : '';
      return `${c.ask} ${article(c.topic)} flow with a yes/no diamond "${c.say(d.question)}"?${before} Yes goes to ${thenChain(c, d.yes)}; no goes to ${thenChain(c, d.no)}. Label those two arrows yes and no.`;
    },
  },
  {
    id: 'decision-bullets',
    style: 'bullets',
    kinds: ['decision'],
    render: (c) => {
      const d = structureOf(c, 'decision');
      c.label(d.question, d.yes[0]);
      c.label(d.question, d.no[0]);
      const lines = [
        ...(d.before.length ? [`- steps: ${thenChain(c, d.before)}`] : []),
        `- decision (diamond): ${c.say(d.question)}`,
        `- if yes: ${thenChain(c, d.yes)}`,
        `- if no: ${thenChain(c, d.no)}`,
      ];
      return `${c.open} ${article(c.topic)} flowchart:\n${lines.join('\n')}\nLabel the two branches yes and no.`;
    },
  },
  {
    id: 'decision-arrows',
    style: 'arrows',
    kinds: ['decision'],
    render: (c) => {
      const d = structureOf(c, 'decision');
      c.label(d.question, d.yes[0]);
      c.label(d.question, d.no[0]);
      const q = `<${c.say(d.question)}>`;
      const lead = d.before.length ? `${arrowChain(c, d.before, '->')} -> ${q}` : q;
      return `${c.open} ${article(c.topic)} flowchart: ${lead} (a diamond); yes -> ${arrowChain(c, d.yes, '->')}; no -> ${arrowChain(c, d.no, '->')}. Label the diamond's arrows yes/no.`;
    },
  },
  // layered
  {
    id: 'layers-list',
    style: 'imperative',
    kinds: ['layered'],
    render: (c) => {
      const t = structureOf(c, 'tiers');
      const tiers = t.tiers.map((x) => `${x.name} layer: ${c.list(x.items)}.`).join(' ');
      return `${c.open} a layered architecture for ${article(c.topic)}. ${tiers} Every component in a layer connects to every component in the layer below it.`;
    },
  },
  {
    id: 'layers-bullets',
    style: 'bullets',
    kinds: ['layered'],
    render: (c) => {
      const t = structureOf(c, 'tiers');
      return `${c.open} ${article(`${numberWord(t.tiers.length)}-tier ${c.topic}`)} diagram, top to bottom:\n${t.tiers.map((x) => `- ${x.name}: ${names(c, x.items).join(', ')}`).join('\n')}\nDraw an arrow from each item to each item in the next tier down.`;
    },
  },
  {
    id: 'layers-question',
    style: 'question',
    kinds: ['layered'],
    render: (c) => {
      const t = structureOf(c, 'tiers');
      return `${c.ask} ${article(c.topic)} stack with ${numberWord(t.tiers.length)} tiers: ${t.tiers.map((x) => `${c.list(x.items)} (${x.name})`).join(', then ')}? Each tier should connect to all components of the next tier.`;
    },
  },
  // mixed and any graph
  {
    id: 'graph-connections',
    style: 'edge list',
    kinds: ['mixed', 'layered', 'tree'],
    render: (c) => {
      const edges = c.inst.edges.map(([a, b]) => `${c.say(a)} to ${c.say(b)}${withLabel(c, a, b, ' (labelled "%")')}`);
      return `${c.open} a diagram of ${c.topic} with ${c.list(c.inst.entities)}. Connections: ${edges.join(', ')}.`;
    },
  },
  {
    id: 'graph-arrows',
    style: 'arrows',
    kinds: GRAPH_KINDS,
    render: (c) => `${c.open} ${article(c.topic)} diagram: ${paths(c.inst.edges).map((p) => arrowChain(c, p, '->')).join(', ')}.`,
  },
  {
    id: 'graph-per-source',
    style: 'imperative',
    kinds: GRAPH_KINDS,
    render: (c) =>
      `${c.open} a diagram of ${c.topic}. ${bySource(c.inst.edges)
        .map((g) => `${c.say(g.from)} connects to ${c.list(g.to)}.`)
        .join(' ')}`,
  },
  {
    id: 'graph-bullets',
    style: 'bullets',
    kinds: GRAPH_KINDS,
    render: (c) => `${c.open} ${article(c.topic)} diagram with these connections:\n${c.inst.edges.map(([a, b]) => `- ${c.say(a)} to ${c.say(b)}${withLabel(c, a, b, ' ("%")')}`).join('\n')}`,
  },
  {
    id: 'graph-terse',
    style: 'terse',
    kinds: GRAPH_KINDS,
    render: (c) => `${c.topic}. nodes: ${names(c, c.inst.entities).join(', ')}. edges: ${c.inst.edges.map(([a, b]) => `${c.say(a)}->${c.say(b)}`).join(', ')}.`,
  },
];

const OOD: Omit<Template, 'split'>[] = [
  // chain
  {
    id: 'chain-leads-to',
    style: 'sequence',
    kinds: ['chain'],
    render: (c) => {
      const s = names(c, c.inst.entities);
      return `Show ${c.topic} as a sequence where ${s[0]} leads to ${s.slice(1).join(', which leads to ')}.`;
    },
  },
  {
    id: 'chain-numbered-steps',
    style: 'casual',
    kinds: ['chain'],
    render: (c) => `${names(c, c.inst.entities).map((x, i) => `Step ${stepWord(i + 1)} is ${x}`).join('; ')}. Put that ${c.topic} process on a canvas, please.`,
  },
  { id: 'chain-double-arrow', style: 'arrows', kinds: ['chain'], render: (c) => `${c.open} the ${c.topic} left to right: ${arrowChain(c, c.inst.entities, '⇒')}.` },
  // cycle
  {
    id: 'cycle-ring',
    style: 'sequence',
    kinds: ['cycle'],
    render: (c) => {
      const s = names(c, structureOf(c, 'sequence').steps);
      const hops = s.slice(1).map((x, i) => `${s[i]} hands over to ${x}`);
      return `Picture the ${c.topic} as a ring where ${hops.join(', ')}, and ${s[s.length - 1]} returns to ${s[0]}.`;
    },
  },
  {
    id: 'cycle-repeats',
    style: 'casual',
    kinds: ['cycle'],
    render: (c) => {
      const steps = structureOf(c, 'sequence').steps;
      return `${cap(c.topic)} repeats forever — the order is ${c.list(steps)}, and after ${c.say(steps[steps.length - 1])} it starts over at ${c.say(steps[0])}. ${c.open} this as a loop.`;
    },
  },
  // fan-out
  {
    id: 'fan-out-targets',
    style: 'terse',
    kinds: ['fan_out'],
    render: (c) => {
      const s = structureOf(c, 'star');
      return `From ${c.say(s.center)}, arrows should go to every one of these: ${names(c, s.members).join('; ')}. (${c.topic})`;
    },
  },
  {
    id: 'fan-out-source',
    style: 'casual',
    kinds: ['fan_out'],
    render: (c) => {
      const s = structureOf(c, 'star');
      return `${c.say(s.center)} is the source and ${c.list(s.members)} are its targets — ${low(c.open)} the ${c.topic} for me.`;
    },
  },
  // fan-in
  {
    id: 'fan-in-point',
    style: 'terse',
    kinds: ['fan_in'],
    render: (c) => {
      const s = structureOf(c, 'star');
      return `Everything flows to ${c.say(s.center)}: ${names(c, s.members).join(', ')} all point at it. Context: ${c.topic}.`;
    },
  },
  {
    id: 'fan-in-collects',
    style: 'sequence',
    kinds: ['fan_in'],
    render: (c) => {
      const s = structureOf(c, 'star');
      return `${c.say(s.center)} collects input from ${names(c, s.members).join(', from ')}. ${c.open} that ${c.topic} picture.`;
    },
  },
  // tree
  {
    id: 'tree-beneath',
    style: 'terse',
    kinds: ['tree'],
    render: (c) => {
      const t = structureOf(c, 'tree');
      const more = t.children.filter((k) => k.children.length > 0).map((k) => ` Beneath ${c.say(k.node)}: ${names(c, k.children).join(', ')}.`);
      return `Top node: ${c.say(t.root)}. Beneath ${c.say(t.root)}: ${names(c, t.children.map((k) => k.node)).join(', ')}.${more.join('')} It's ${article(c.topic)} hierarchy.`;
    },
  },
  {
    id: 'tree-splits',
    style: 'casual',
    kinds: ['tree'],
    render: (c) => {
      const t = structureOf(c, 'tree');
      const more = t.children.filter((k) => k.children.length > 0).map((k) => `; ${c.say(k.node)} splits into ${c.list(k.children)}`);
      return `${c.topic} breakdown: ${c.say(t.root)} splits into ${c.list(t.children.map((k) => k.node))}${more.join('')}. ${c.open} the whole thing top-down.`;
    },
  },
  // decision
  {
    id: 'decision-branch-point',
    style: 'sequence',
    kinds: ['decision'],
    render: (c) => {
      const d = structureOf(c, 'decision');
      c.label(d.question, d.yes[0]);
      c.label(d.question, d.no[0]);
      const before = d.before.length ? `, preceded by ${arrowChain(c, d.before, '→')}` : '';
      return `${c.say(d.question)} is the branch point in this ${c.topic} process${before}; draw it as a diamond. Answering yes takes you to ${arrowChain(c, d.yes, '→')}; answering no takes you to ${arrowChain(c, d.no, '→')}. Mark the two exits yes and no.`;
    },
  },
  {
    id: 'decision-paths',
    style: 'terse',
    kinds: ['decision'],
    render: (c) => {
      const d = structureOf(c, 'decision');
      c.label(d.question, d.yes[0]);
      c.label(d.question, d.no[0]);
      const before = d.before.length ? ` Before it: ${arrowChain(c, d.before, '→')}.` : '';
      return `Should be a diamond: ${c.say(d.question)}.${before} Yes-path: ${arrowChain(c, d.yes, '→')}. No-path: ${arrowChain(c, d.no, '→')}. ${c.open} the diagram with yes/no on the two exits.`;
    },
  },
  {
    id: 'decision-casual',
    style: 'casual',
    kinds: ['decision'],
    render: (c) => {
      const d = structureOf(c, 'decision');
      c.label(d.question, d.yes[0]);
      c.label(d.question, d.no[0]);
      const before = d.before.length ? `we do ${c.list(d.before)} (in that order), then ` : '';
      return `our ${c.topic} goes like this: ${before}we ask ${c.say(d.question)} (diamond please). on yes it's ${arrowChain(c, d.yes, '→')}, on no it's ${arrowChain(c, d.no, '→')}. tag those exits yes / no`;
    },
  },
  // layered
  {
    id: 'layers-stack',
    style: 'terse',
    kinds: ['layered'],
    render: (c) => {
      const t = structureOf(c, 'tiers');
      return `Stack these tiers for ${c.topic}, top to bottom — ${t.tiers.map((x) => `${x.name}: ${names(c, x.items).join(' / ')}`).join('; ')}. Each item links to all items one tier down.`;
    },
  },
  {
    id: 'layers-bands',
    style: 'sequence',
    kinds: ['layered'],
    render: (c) => {
      const t = structureOf(c, 'tiers');
      return `${c.open} ${c.topic} in horizontal bands. ${t.tiers.map((x, i) => `Band ${i + 1} (${x.name}) holds ${c.list(x.items)}.`).join(' ')} Every box in a band points to every box in the band beneath.`;
    },
  },
  // mixed and any graph
  {
    id: 'graph-pairs',
    style: 'edge list',
    kinds: ['mixed', 'layered', 'tree'],
    render: (c) => `${cap(c.topic)} wiring, as (source, target) pairs: ${c.inst.edges.map(([a, b]) => `(${c.say(a)}, ${c.say(b)})`).join(', ')}. ${c.open} that as a diagram.`,
  },
  {
    id: 'graph-unicode',
    style: 'arrows',
    kinds: GRAPH_KINDS,
    render: (c) => `${c.open} this ${c.topic} graph — ${paths(c.inst.edges).map((p) => arrowChain(c, p, '→')).join('; ')}.`,
  },
  {
    id: 'graph-numbered',
    style: 'bullets',
    kinds: GRAPH_KINDS,
    render: (c) => `I want a picture of ${c.topic}.\n${c.inst.edges.map(([a, b], i) => `${i + 1}. ${c.say(a)} feeds ${c.say(b)}${withLabel(c, a, b, " (caption: '%')")}`).join('\n')}`,
  },
  {
    id: 'graph-points-to',
    style: 'edge list',
    kinds: GRAPH_KINDS,
    render: (c) =>
      `${c.open} a graph with the nodes ${names(c, c.inst.entities).join(' / ')} and these links: ${c.inst.edges.map(([a, b]) => `${c.say(a)} points to ${c.say(b)}`).join(', ')}. Topic: ${c.topic}.`,
  },
];

/** ` (labelled "calls")` when the edge carries a label, empty otherwise; `%` in the pattern is the label. */
function withLabel(c: Ctx, a: Entity, b: Entity, pattern: string): string {
  const l = c.label(a, b);
  return l === undefined ? '' : pattern.replace('%', l);
}

export const TEMPLATES: readonly Template[] = [
  ...TRAIN.map((t) => ({ ...t, split: 'train' as const })),
  ...OOD.map((t) => ({ ...t, split: 'ood' as const })),
];

export function templatesFor(split: Vocab, kind: DiagramKind): Template[] {
  return TEMPLATES.filter((t) => t.split === split && t.kinds.includes(kind));
}
