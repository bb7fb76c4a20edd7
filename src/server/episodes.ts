// The canvas episodes the server plays, by name.
import { DiagramEpisode, type CanvasEnv, type EpisodeName } from '../diagram/episode.ts';
import { EditingEpisode } from '../editing/episode.ts';

/** A fresh environment by name. */
export function makeEpisode(name: EpisodeName, opts: { reward?: string; maxTurns?: number } = {}): CanvasEnv {
  return name === 'diagram' ? new DiagramEpisode({ reward: opts.reward }) : new EditingEpisode({ maxTurns: opts.maxTurns });
}
