// Actions the episode tests play: a diagram answer, and an editing sequence with a parse error and a refused action.
import type { Observation } from '../../src/diagram/episode.ts';

export const DIAGRAM_ANSWER = JSON.stringify({
  actions: [
    { type: 'create_shape', id: 'a', shape: 'rectangle', x: 40, y: 40, w: 160, h: 60, text: 'Client' },
    { type: 'create_shape', id: 'b', shape: 'rectangle', x: 300, y: 40, w: 160, h: 60, text: 'API' },
    { type: 'connect', from: 'a', to: 'b' },
  ],
});

export const editingActions = (obs: unknown): string[] => {
  const first = (obs as Observation).canvas.shapes[0];
  return [
    'not json at all',
    JSON.stringify({ actions: [{ type: 'update_shape', id: first.id, x: first.x + 5 }, { type: 'delete_shape', id: 'missing' }] }),
    JSON.stringify({ actions: [{ type: 'update_shape', id: first.id, y: first.y + 5 }] }),
  ];
};
