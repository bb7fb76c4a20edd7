// `--env NAME`: which environment a command trains or measures in (src/environments.ts).
import { DEFAULT_ENV, ENV_NAMES, getEnv } from '../environments.ts';
import type { TextEnv } from '../environment/text-env.ts';
import { choiceFlag } from './flags.ts';

export const ENV_FLAG_HELP = `environment: ${ENV_NAMES.join(', ')} (default ${DEFAULT_ENV})`;

export function envFlag(name: string | undefined): TextEnv {
  return getEnv(choiceFlag('--env', name, ENV_NAMES) ?? DEFAULT_ENV);
}
