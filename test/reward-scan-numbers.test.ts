// The reader's number tokens in action fields (assembly/json-scan.ts: short ints read inline, the rest by
// scanNumber), against JSON.parse in the strict grammar and the exact Python port in Python's.
import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../src/random.ts';
import { FIELD, jsonReader, KIND, SCAN } from '../src/reward/fast-json.ts';
import { PyInt, pyJsonLoads } from '../src/reward/seed-python.ts';

const json = jsonReader!;
const NUMBER_FIELDS = [FIELD.x, FIELD.y, FIELD.w, FIELD.h] as const;
const KEYS = ['x', 'y', 'w', 'h'] as const;

/** A number-like token: valid ones of every shape, and near misses (leading zeros, a bare dot or exponent). */
function token(rand: () => number): string {
  const digits = (n: number) => Array.from({ length: n }, (_, i) => String(Math.floor(rand() * 10) || (i === 0 ? 1 : 0))).join('');
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];
  let t = rand() < 0.15 ? '-' : '';
  t += rand() < 0.1 ? pick(['0', '00', '01', '0' + digits(3)]) : digits(1 + Math.floor(rand() * 12));
  if (rand() < 0.2) t += pick(['.', '.5', `.${digits(1 + Math.floor(rand() * 4))}`]);
  if (rand() < 0.15) t += pick(['e', 'E', 'e+', 'e-', 'e2', 'E-3', 'e+22', 'e400']);
  if (rand() < 0.05) t += pick(['x', '-', '+1', ' 1', 'NaN']);
  return t;
}

describe('reader numbers in action fields', () => {
  it('agree with JSON.parse and Python json.loads on random tokens', () => {
    const rand = mulberry32(41);
    let ok = 0;
    let shortInts = 0;
    for (let k = 0; k < 4000; k++) {
      const tokens = KEYS.map(() => token(rand));
      const spaced = rand() < 0.5;
      const fields = KEYS.map((key, i) => (spaced ? `"${key}": ${tokens[i]} ` : `"${key}":${tokens[i]}`)).join(',');
      const text = `{"actions":[{"type":"create_shape",${fields}}]}`;
      for (const python of [false, true]) {
        const status = json.scan(0, json.load(text), 0, python);
        let expected: Record<string, unknown> | null = null;
        if (python) {
          const r = pyJsonLoads(text);
          if (r.ok) expected = (r.value as unknown as Map<string, unknown[]>).get('actions')![0] as Record<string, unknown>;
        } else {
          try {
            expected = (JSON.parse(text) as { actions: Record<string, unknown>[] }).actions[0];
          } catch {
            expected = null;
          }
        }
        if (expected === null) {
          expect({ text, python, status }).toEqual({ text, python, status: python ? expect.any(Number) : SCAN.invalid });
          if (python) expect([SCAN.invalid, SCAN.pyLimit]).toContain(status);
          continue;
        }
        expect({ text, python, status }).toEqual({ text, python, status: SCAN.ok });
        ok++;
        json.settleNumbers(text);
        NUMBER_FIELDS.forEach((f, i) => {
          const value = expected instanceof Map ? expected.get(KEYS[i]) : expected[KEYS[i]];
          const kind = json.fieldKind(0, f);
          const spelled = tokens[i].trim();
          expect({ text, kind }).toEqual({ text, kind: /[.eE]/.test(spelled) ? KIND.float : KIND.int });
          expect(text.slice(json.fieldStart(0, f), json.fieldEnd(0, f))).toBe(spelled);
          expect({ text, f, v: json.fieldNumber(text, 0, f) }).toEqual({ text, f, v: value instanceof PyInt ? Number(spelled) : value });
          if (/^[1-9]\d{0,8}$/.test(spelled)) shortInts++;
        });
      }
    }
    expect(ok).toBeGreaterThan(2000);
    expect(shortInts).toBeGreaterThan(3000);
  });

  it('reads ints of hundreds and thousands of digits as both grammars do; past 10^309, JavaScript\'s as Infinity', () => {
    const rand = mulberry32(43);
    const digits = (n: number) => String(1 + Math.floor(rand() * 9)) + Array.from({ length: n - 1 }, () => String(Math.floor(rand() * 10))).join('');
    let infinite = 0;
    for (const n of [15, 16, 19, 20, 35, 36, 308, 309, 310, 311, 400, 1000, 4299, 4300, 4301]) {
      for (const sign of ['', '-']) {
        for (const tail of ['', '.5', 'e-400', 'e2', '.25e-300']) {
          const spelled = `${sign}${digits(n)}${tail}`;
          const text = `{"actions":[{"type":"create_shape","x":${spelled},"y":1}],"note":${spelled}}`;
          expect(json.scan(0, json.load(text), 0, false)).toBe(SCAN.ok);
          // Read before settleNumbers: what the scan converted itself, or JavaScript's conversion of the token.
          expect({ spelled, v: json.fieldNumber(text, 0, FIELD.x) }).toEqual({ spelled, v: Number(spelled) });
          // Past 309 digits without an exponent the scan converts the token itself (the records hold it, whatever
          // text is passed), so that settleNumbers has nothing to convert.
          if (n > 309 && !tail.includes('e')) {
            expect({ spelled, v: json.fieldNumber('0'.repeat(text.length), 0, FIELD.x) }).toEqual({ spelled, v: sign ? -Infinity : Infinity });
            infinite++;
          }
          const status = json.scan(0, json.load(text), 0, true);
          const r = pyJsonLoads(text);
          expect({ spelled, status }).toEqual({ spelled, status: r.ok ? SCAN.ok : r.error.type === 'JSONDecodeError' ? SCAN.invalid : SCAN.pyLimit });
        }
      }
    }
    expect(infinite).toBe(28);
  });

  it('stops a short int at the scanned span, not at the digits after it', () => {
    const inner = '{"actions":[{"x":12}]}';
    const text = `${inner}345`;
    const bytes = json.load(text);
    expect(json.scan(0, bytes, 0, true)).toBe(SCAN.invalid);
    expect(json.scan(0, inner.length, 0, true)).toBe(SCAN.ok);
    expect(json.fieldNumber(text, 0, FIELD.x)).toBe(12);
    for (let cut = 14; cut < inner.length; cut++) expect(json.scan(0, cut, 0, false)).toBe(SCAN.invalid);
  });
});
