// How deep JSON text nests, read on its bytes before JSON.parse: the parser takes any depth, but what reads the value
// afterwards (zod, JSON.stringify, the episode code) recurses and runs out of stack. The server's bodies and the score
// command's rows are checked with it.
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** Whether JSON text nests arrays and objects deeper than `limit`, read on the bytes without parsing. Exact for valid
 *  JSON (invalid JSON fails the parse anyway); strings are skipped with indexOf, so the cost is a fraction of the parse. */
export function nestsDeeperThan(bytes: Uint8Array, limit: number): boolean {
  let depth = 0;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    if (b === QUOTE) {
      // The closing quote is the next one preceded by an even run of backslashes.
      for (;;) {
        const q = bytes.indexOf(QUOTE, i + 1);
        if (q < 0) return false;
        let run = 0;
        while (bytes[q - 1 - run] === BACKSLASH) run++;
        i = q;
        if (run % 2 === 0) break;
      }
    } else if (b === 0x5b || b === 0x7b) {
      if (++depth > limit) return true;
    } else if (b === 0x5d || b === 0x7d) depth--;
  }
  return false;
}
