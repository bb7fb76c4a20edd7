// A step that leaves the loss, the gradient or the weights non-finite spoils every step after it: NaN weights train
// to NaN and sample garbage, and the run fails much later with an error about something else. The trainers check
// each step and stop at the first one that diverged, before anything of it is saved.
import type { GPT } from '../model/gpt.ts';

/** What the step left non-finite, worded for the user; undefined when the loss, the gradient and the weights are finite. */
export function divergence(model: GPT, step: { loss: number; gradNorm: number; lr: number }): string | undefined {
  const figures: [string, number][] = [
    ['loss', step.loss],
    ['gradient norm', step.gradNorm],
    ['weight norm', model.weightNorm()],
  ];
  if (figures.every(([, v]) => Number.isFinite(v))) return undefined;
  const shown = figures.map(([name, v]) => `${name} ${Number.isFinite(v) ? v.toPrecision(4) : v}`).join(', ');
  return `training diverged (${shown}) at learning rate ${step.lr}: lower --learning-rate and start a new run`;
}
