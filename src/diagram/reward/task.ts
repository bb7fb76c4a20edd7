// The `task` preset: the reward canvasgym trains on. Syntax is a gate and a small share; the diagram the user asked for
// is most of it. Under `strong` (the seed's sketch weights) any answer that executes takes the 0.65 of the weight on
// parse, schema and canvas, so a box of gibberish scores 0.7 and RL near the valid region mostly learns syntax; here
// the same box scores at most `executes`' weight.
//
// Every task component is multiplied by the share of actions the canvas applied, so a refused action costs in
// proportion everywhere, and layout counts only as far as the diagram is the right one: it refines, never rescues.
// The measures are strong's (entities matched by distinct shapes less excess shapes, directed edges as recall x
// precision, the layout penalties), so that the two presets disagree only on what matters.
import { defineRubric } from './rubric.ts';
import { analyzeStrong, type StrongContext } from './strong.ts';

const applied = (c: StrongContext) => c.values.renderer_accepts;

export const taskRubric = defineRubric<StrongContext>({
  name: 'task',
  description: 'The task first: requested entities and edges (gated by what the canvas applied), layout only on the right diagram, a small share for executing at all.',
  prepare: analyzeStrong,
  components: [
    {
      name: 'executes',
      weight: 0.05,
      description: 'JSON found (1 bare, 0.8 fenced, 0.6 in prose) x share of actions the canvas applies',
      fn: (c) => c.values.parses_json * applied(c),
    },
    {
      name: 'entities',
      weight: 0.5,
      description: "strong's entities_present x share of actions applied",
      fn: (c) => c.values.entities_present * applied(c),
    },
    {
      name: 'edges',
      weight: 0.35,
      description: "strong's edges_correct x share of actions applied",
      fn: (c) => c.values.edges_correct * applied(c),
    },
    {
      name: 'layout',
      weight: 0.1,
      description: "strong's layout_quality x entities_present x edges_correct x share applied: layout of the right diagram only",
      fn: (c) => c.values.layout_quality * c.values.entities_present * c.values.edges_correct * applied(c),
    },
  ],
  errors: (c) => c.exec.errors,
});
