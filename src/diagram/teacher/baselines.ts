// Fixed policies that read nothing but the words of the request: what a score is worth is what these get. Every
// evaluation shows them beside the real policies, so that a reader sees, say, that one box scores 0.75 under `strong`
// and 0.05 under `task`.
import type { DiagramSpec } from '../tasks/spec.ts';
import type { ChatMessage, Completion, Policy } from '../../policy/policy.ts';
import { userPrompt } from '../../model/chat.ts';
import { boxFor } from './scripted.ts';

type Answer = (prompt: string, spec: DiagramSpec) => object[];

const box = (id: string, i: number, shape: 'rectangle' | 'text' = 'rectangle') => {
  const { w, h } = boxFor(id, 'rectangle');
  return { type: 'create_shape', id, shape, x: 40 + (i % 4) * 260, y: 40 + Math.floor(i / 4) * 140, w: Math.min(w, 240), h, text: id };
};

const ANSWERS = {
  /** An empty action list. */
  empty: () => [],
  /** One rectangle labelled "A", whatever was asked. */
  'one-box': () => [box('A', 0)],
  /** The whole request in one text shape: every word of the prompt on the canvas. */
  'prompt-box': (prompt) => [{ type: 'create_shape', id: 'request', shape: 'text', x: 40, y: 40, w: 1000, h: 400, text: prompt }],
  /** The requested entities as boxes, with no arrow. */
  names: (_prompt, spec) => spec.entities.map((e, i) => box(e, i)),
} satisfies Record<string, Answer>;

export type BaselineName = keyof typeof ANSWERS;
export const BASELINE_NAMES = Object.keys(ANSWERS) as BaselineName[];

export class BaselinePolicy implements Policy {
  readonly name: string;
  constructor(
    readonly baseline: BaselineName,
    /** The spec a prompt asks for (the task's, else extracted from the prompt): only `names` reads it. */
    private readonly specOf: (prompt: string) => DiagramSpec,
  ) {
    this.name = `baseline:${baseline}`;
  }

  async generate(conversations: ChatMessage[][], opts: { n?: number } = {}): Promise<Completion[][]> {
    return conversations.map((c) => {
      const prompt = userPrompt(c);
      const text = JSON.stringify({ actions: ANSWERS[this.baseline](prompt, this.specOf(prompt)) });
      return Array.from({ length: opts.n ?? 1 }, () => ({ text, finishReason: 'stop' as const }));
    });
  }
}
