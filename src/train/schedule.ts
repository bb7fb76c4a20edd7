// Learning-rate schedule: linear warmup, then cosine decay to a floor (TRL's lr_scheduler_type "cosine" with warmup_ratio).

export interface ScheduleOptions {
  learningRate: number;
  totalSteps: number;
  warmupSteps: number;
  /** The floor as a share of learningRate (cosine_with_min_lr's min_lr_rate). */
  minLrRate?: number;
}

/** The rate for update number `step` (0-based). */
export function learningRateAt(step: number, o: ScheduleOptions): number {
  const floor = o.learningRate * (o.minLrRate ?? 0);
  if (step < o.warmupSteps) return (o.learningRate * (step + 1)) / o.warmupSteps;
  const decaySteps = Math.max(1, o.totalSteps - o.warmupSteps);
  const progress = Math.min(1, (step - o.warmupSteps) / decaySteps);
  return floor + (o.learningRate - floor) * 0.5 * (1 + Math.cos(Math.PI * progress));
}

/** warmup_ratio of the total steps, rounded up as transformers does. */
export function warmupSteps(totalSteps: number, warmupRatio: number): number {
  return Math.ceil(totalSteps * warmupRatio);
}
