// Which renderer executes and draws a completion. Kept apart from the driver so that commands can check the flag
// without loading playwright (over a second on a busy machine) unless tldraw is really asked for.
export const RENDERERS = ['canvas', 'tldraw'] as const;
export type Renderer = (typeof RENDERERS)[number];

/** Checks a `--renderer` value; the message names the choices. */
export function parseRenderer(name: string): Renderer {
  if ((RENDERERS as readonly string[]).includes(name)) return name as Renderer;
  throw new Error(`unknown renderer ${JSON.stringify(name)}: use ${RENDERERS.join(' or ')}`);
}
