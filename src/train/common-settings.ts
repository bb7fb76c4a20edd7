// Settings both trainers share.
import { availableParallelism } from 'node:os';
import { z } from 'zod';

/** Worker threads: more than the machine's cores only makes the threads wait for each other. */
export const threadsSetting = (what: string) =>
  z
    .int()
    .min(1)
    .max(availableParallelism())
    .optional()
    .describe(what)
    .meta({ note: "this machine's cores", shownRule: "an integer from 1 to the machine's cores", shownDefault: '2, or 1 on one core', arg: 'n' });
