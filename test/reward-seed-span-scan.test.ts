// scanSeed (seed-fast.ts) keeps the first scan's records when the text's document starts at its first '{' and
// closes at its last '}' (only the text after it failed the scan): those records against a scan of the span itself.
// And the seed scorer's table of shapes by id (assembly/seed-score.ts) against the exact port.
import { describe, expect, it } from 'vitest';
import { generateCorpus } from '../src/env/corpus.ts';
import { jsonReader, SCAN, SEED } from '../src/reward/fast-json.ts';
import { scanSeed, seedScoreRecords } from '../src/reward/seed-fast.ts';
import { checkCompletion } from '../src/reward/seed-python.ts';
import { seedLayout, seedRubric } from '../src/reward/seed.ts';

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

describe('seed scorer shape table', () => {
  it('finds every shape by id, the last of 39 included, and tells completions apart', () => {
    const shape = (id: string, x: number) => `{"type": "create_shape", "id": "${id}", "shape": "ellipse", "x": ${x}, "y": 0, "w": 10, "h": 10, "text": "database ${id}"}`;
    const connect = (from: string, to: string) => `{"type": "connect", "from": "${from}", "to": "${to}"}`;
    const prompt = 'database diagram';
    for (let k = 1; k <= 39; k++) {
      const ids = Array.from({ length: k }, (_, i) => `node-${i * 7919}`);
      const shapes = ids.map((id, i) => shape(id, i * 20));
      const last = ids[k - 1];
      const texts = [
        `{"actions": [${[...shapes, connect(ids[0], last)].join(', ')}]}`,
        `{"actions": [${[...shapes, connect(last, ids[0])].join(', ')}]}`,
        `{"actions": [${[...shapes, shape(last, 999)].join(', ')}]}`,
        // The previous completion's ids are gone: a connect to one of them is refused.
        `{"actions": [${[shape('other', 0), connect('other', last)].join(', ')}]}`,
      ];
      for (const completion of texts) {
        const o = checkCompletion(completion);
        const s = seedRubric.score({ prompt, completion });
        expect({ k, completion, valid: s.components.valid, layout: s.components.layout }).toEqual({
          k,
          completion,
          valid: o.canvas !== null && o.errors.length === 0 ? 1 : 0,
          layout: o.canvas ? seedLayout(o.canvas) : 0,
        });
        expect(scanSeed(completion) === true && json.seedPrompt(prompt) && seedScoreRecords(completion)).toBe(SEED.done);
      }
    }
  });
});
