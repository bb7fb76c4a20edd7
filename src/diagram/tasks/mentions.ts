// Where a prompt names an entity: the name as a whole word (not "IP" inside "whip"), in any case.

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Matches any of `names` standing as whole words, case-insensitively; put longer names first so that they win. */
export function mentionRegExp(names: readonly string[], flags = 'iu'): RegExp {
  return new RegExp(`(?<![\\p{L}\\p{N}])(?:${names.map(escapeRegExp).join('|')})(?![\\p{L}\\p{N}])`, flags);
}
