// scanSeed (seed-fast.ts) keeps the first scan's records when the text's document starts at its first '{' and
// closes at its last '}' (only the text after it failed the scan): those records against a scan of the span itself.
import { describe, expect, it } from 'vitest';
import { generateCorpus } from '../src/env/corpus.ts';
import { jsonReader, SCAN } from '../src/reward/fast-json.ts';
import { scanSeed } from '../src/reward/seed-fast.ts';

const json = jsonReader!;

/** Everything the seed scorer and seed-fast.ts read of the last scan, numbers settled. */
function records(text: string): unknown {
  json.settleNumbers(text);
  const actions = [];
  for (let i = 0; i < Math.min(json.actionCount(), 41); i++) {
    const fields = [];
    for (let f = 0; f < 10; f++) {
      const kind = json.fieldKind(i, f);
      fields.push(kind === 0 ? 0 : [kind, json.fieldStart(i, f), json.fieldEnd(i, f), kind === 2 || kind === 3 ? json.fieldNumber(text, i, f) : null]);
    }
    actions.push([json.elementKind(i), fields]);
  }
  return [json.rootKind(), json.actionsKind(), json.actionCount(), actions];
}

describe('seed brace span after a document followed by text', () => {
  it('keeps records equal to a scan of the span', () => {
    const docs = generateCorpus({ n: 600, seed: 5 }).filter((c) => c.category === 'valid').map((c) => c.completion);
    const tails = ['\nThanks!', ' Hope this helps 🚀', '\n\nDonnées: none', ' x', '\n```', ' {"extra": 1'];
    let kept = 0;
    for (const [k, doc] of docs.entries()) {
      const text = `${k % 3 === 0 ? '  \n' : ''}${doc}${tails[k % tails.length]}`;
      expect(scanSeed(text)).toBe(true);
      const kept0 = records(text);
      const from = text.indexOf('{');
      const bytes = json.load(text);
      const byteFrom = json.firstOpenBrace(bytes);
      const byteTo = json.lastCloseBrace(bytes) + 1;
      expect(json.scan(byteFrom, byteTo, from, true)).toBe(SCAN.ok);
      expect(kept0).toEqual(records(text));
      kept++;
    }
    expect(kept).toBeGreaterThan(100);
  });
});
