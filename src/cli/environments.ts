// The text environments by name, for the commands (`--env`). Kept out of the environments' own folders so that none
// of them imports another, nor the generic trainers them.
import { arithmeticEnv } from '../arithmetic/arithmetic-env.ts';
import { diagramEnv } from '../diagram/diagram-env.ts';
import type { TextEnv } from '../environment/text-env.ts';

export const ENVIRONMENTS: Readonly<Record<string, TextEnv>> = { diagram: diagramEnv, arithmetic: arithmeticEnv };
export const ENV_NAMES: readonly string[] = Object.keys(ENVIRONMENTS);
export const DEFAULT_ENV = 'diagram';

/** Throws, naming the environments, on an unknown name. */
export function getEnv(name: string): TextEnv {
  if (!Object.hasOwn(ENVIRONMENTS, name)) throw new Error(`unknown environment ${JSON.stringify(name)}: use ${ENV_NAMES.join(' or ')}`);
  return ENVIRONMENTS[name];
}
