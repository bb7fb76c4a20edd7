// A user's own request made a task: its spec the one the prompt-only reward reads (src/diagram/reward/extract.ts,
// spelled out as the reward spells it), or a chat model's when one is asked (spec-model.ts), with where it came from.
// Where the model gives one, a review row lists what each has that the other lacks, for a person to settle.
import { promptSpec, spelledOut } from '../reward/strong.ts';
import type { DiagramSpec, Task } from '../tasks/spec.ts';
import { nameKey as key } from './grounded.ts';
import type { SpecModel } from './spec-model.ts';

/** Where a task's spec came from: `extract` (the prompt-only reward's reading of the prompt), the model's name, or
 *  `extract` after the model failed, with why. */
export type PromptTask = Task & { spec_source: string };

export interface SpecReview {
  id: string;
  prompt: string;
  extract: DiagramSpec;
  model: DiagramSpec;
  /** What each spec holds that the other does not (names compared as grounding compares them: a plural is its
   *  singular). */
  only_extract: { entities: string[]; edges: [string, string][] };
  only_model: { entities: string[]; edges: [string, string][] };
}

const edgeKey = ([f, t]: readonly [string, string]) => `${key(f)}->${key(t)}`;

/** What `a` holds that `b` does not. */
function missingFrom(a: DiagramSpec, b: DiagramSpec): { entities: string[]; edges: [string, string][] } {
  const entities = new Set(b.entities.map(key));
  const edges = new Set(b.edges.map(edgeKey));
  return { entities: a.entities.filter((e) => !entities.has(key(e))), edges: a.edges.filter((e) => !edges.has(edgeKey(e))) };
}

/** Both specs side by side where they disagree, or null where they hold the same entities and edges. */
export function reviewSpecs(id: string, prompt: string, extract: DiagramSpec, model: DiagramSpec): SpecReview | null {
  const only_extract = missingFrom(extract, model);
  const only_model = missingFrom(model, extract);
  if (only_extract.entities.length + only_extract.edges.length + only_model.entities.length + only_model.edges.length === 0) return null;
  return { id, prompt, extract, model, only_extract, only_model };
}

export type FromPrompt = { task: PromptTask; review: SpecReview | null; fellBack: boolean } | { error: string };

/** The task for one request; an error where no spec names an entity (the extraction found none and no model gave one). */
export async function taskFromPrompt(id: string, prompt: string, model?: SpecModel): Promise<FromPrompt> {
  const extracted = promptSpec(prompt);
  const asked = model ? await model.spec(prompt) : undefined;
  if (asked && 'spec' in asked) {
    const spec = spelledOut(asked.spec);
    return { task: { id, prompt, spec, spec_source: model!.name }, review: reviewSpecs(id, prompt, extracted, spec), fellBack: false };
  }
  if (extracted.entities.length === 0) return { error: `the prompt names no entity the extraction can read${asked ? `, and ${model!.name} failed: ${asked.error}` : ''}` };
  const source = asked ? `extract (${model!.name} failed: ${asked.error})` : 'extract';
  return { task: { id, prompt, spec: extracted, spec_source: source }, review: null, fellBack: asked !== undefined };
}
