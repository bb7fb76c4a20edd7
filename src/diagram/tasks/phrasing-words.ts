// The small words around a request, kept apart per split like the templates: a held-out prompt never opens, asks
// for an arrow label or chats the way a training prompt does.
import type { Vocab } from './scenarios.ts';

export interface SplitWords {
  /** Imperative verbs that start a request: "Draw a ...". */
  open: string[];
  /** Question openers, completed by "a diagram ...?". */
  ask: string[];
  /** One arrow label request; `{a}`, `{b}` are entities and `{l}` the label. */
  labelOne: string[];
  /** Several label requests in one sentence: `{list}` is filled with `labelItem` entries joined by `labelJoin`. */
  labelMany: string[];
  labelItem: string;
  labelJoin: string;
  /** Phrasing noise: what a hurried person adds around a request. */
  prefix: string[];
  suffix: string[];
  aside: string[];
}

export const WORDS: Record<Vocab, SplitWords> = {
  train: {
    open: ['Draw', 'Create', 'Make', 'Sketch', 'Build', 'Whip up'],
    ask: ['Can you draw', 'Could you sketch', 'Would you make', 'Can you create', 'Could you build'],
    labelOne: [
      'Label the arrow from {a} to {b} "{l}".',
      'Put "{l}" on the {a} -> {b} arrow.',
      'The arrow from {a} to {b} should say "{l}".',
    ],
    labelMany: ['Arrow labels: {list}.', 'Label these arrows: {list}.'],
    labelItem: '{a} -> {b} "{l}"',
    labelJoin: ', ',
    prefix: ['hey, ', 'quick one: ', 'ok so ', 'pls '],
    suffix: [' thanks!', ' Keep it simple.', ' Nothing fancy.', ' (for a slide)'],
    aside: ['This is for our team wiki.', 'My manager asked for this.', 'Boxes and arrows are fine.'],
  },
  ood: {
    open: ['Lay out', 'Put together', 'Produce', 'Map out', 'Render', 'Chart'],
    ask: ['Any chance you could lay out', 'Would you mind putting together', 'Is it possible to map out', 'Could you help me chart'],
    labelOne: [
      "Caption the link {a} → {b} with '{l}'.",
      "Mark the connection going from {a} into {b} as '{l}'.",
      '{a}-to-{b} edge text: {l}.',
    ],
    labelMany: ['Edge captions — {list}.', 'Write these on the links: {list}.'],
    labelItem: '{a} → {b}: {l}',
    labelJoin: '; ',
    prefix: ['yo - ', 'hi there! ', 'so um, ', 'real quick, '],
    suffix: [' cheers', ' ty', ' (need it for a handout)', ' No colors needed.'],
    aside: ['It goes in a README.', 'Planning to print it.', 'Simple shapes please.'],
  },
};
