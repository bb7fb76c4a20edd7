// `--env NAME`: which environment a command trains or measures in (src/cli/environments.ts).
import { z } from 'zod';
import { DEFAULT_ENV, ENV_NAMES, getEnv } from './environments.ts';
import type { TextEnv } from '../environment/text-env.ts';
import { givenSettings } from './settings-flags.ts';

export const envSetting = z
  .enum(ENV_NAMES as [string, ...string[]])
  .default(DEFAULT_ENV)
  .describe('the environment to train in (src/cli/environments.ts)')
  .meta({ arg: 'name' });

const EnvSettings = z.object({ env: envSetting });

export function envFlag(name: string | undefined): TextEnv {
  return getEnv(givenSettings(EnvSettings, { env: name }).env ?? DEFAULT_ENV);
}
