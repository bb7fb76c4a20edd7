// The canvas episodes the server plays, by name.
import { DiagramEnv, type CanvasEnv, type EnvName } from '../diagram/episode.ts';
import { EditingEnv } from '../editing/editing-env.ts';

/** A fresh environment by name. */
export function makeEnv(name: EnvName, opts: { reward?: string; maxTurns?: number } = {}): CanvasEnv {
  return name === 'diagram' ? new DiagramEnv({ reward: opts.reward }) : new EditingEnv({ maxTurns: opts.maxTurns });
}
