// The reader's separator templates (assembly/json-scan.ts): the bytes between an action field's value and the next
// one's, learned from one document and used on the next. Every probe here follows a document that taught the reader
// its format, and changes one separator right where a template would stop: a reader that jumped over bytes the
// general parse reads differently would record another field, position or value, and the scores would differ from
// the exact paths'.
import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../src/random.ts';
import { checkCompletion } from '../src/reward/seed-python.ts';
import { seedLayout, seedRubric, seedSemantics } from '../src/reward/seed.ts';
import { analyzeStrong, strongRubric } from '../src/reward/strong.ts';
import type { DiagramSpec } from '../src/tasks/spec.ts';

const PROMPT = 'Draw Client, Gateway and Database: Client to Gateway, Gateway to Database.';
const SPEC: DiagramSpec = { entities: ['Client', 'Gateway', 'Database'], edges: [['Client', 'Gateway'], ['Gateway', 'Database']] };

/** strong's and seed's scores against their exact paths (analyzeStrong; the Python port). */
function expectExact(completion: string): void {
  const strong = strongRubric.score({ prompt: PROMPT, completion, spec: SPEC });
  const values: Record<string, number> = analyzeStrong({ prompt: PROMPT, completion, spec: SPEC }).values;
  const expected: Record<string, number> = {};
  for (const c of strongRubric.components) expected[c.name] = Math.min(1, Math.max(0, values[c.name]));
  expect({ completion, ...strong.components }).toEqual({ completion, ...expected });

  const seed = seedRubric.score({ prompt: PROMPT, completion });
  const o = checkCompletion(completion);
  const valid = o.canvas !== null && o.errors.length === 0 ? 1 : 0;
  const layout = o.canvas ? seedLayout(o.canvas) : 0;
  const semantics = o.canvas ? seedSemantics(PROMPT, o.canvas) : 0;
  expect({ completion, ...seed.components }).toEqual({ completion, valid, layout, semantics });
}

type Field = [key: string, value: unknown];

function actions(rng: () => number): Field[][] {
  const names = ['Client', 'Gateway', 'Database'];
  const list: Field[][] = names.map((name, i) => [
    ['type', 'create_shape'],
    ['id', name.toLowerCase()],
    ['shape', ['rectangle', 'ellipse', 'diamond'][i]],
    ['x', Math.floor(rng() * 900)],
    ['y', Math.floor(rng() * 90)],
    ['w', 60 + Math.floor(rng() * 140)],
    ['h', 40 + Math.floor(rng() * 9)],
    ['text', name],
  ]);
  list.push([['type', 'connect'], ['from', 'client'], ['to', 'gateway']]);
  list.push([['type', 'connect'], ['from', 'gateway'], ['to', 'database'], ['text', 'reads']]);
  return list;
}

interface Format {
  name: string;
  /** Before each field, by its index in the action (0: after the action's brace). */
  before: (field: number) => string;
  colon: string;
  /** Before an action's closing brace. */
  close: string;
}

const FORMATS: Format[] = [
  { name: 'compact', before: () => '', colon: ':', close: '' },
  { name: 'spaced', before: (i) => (i ? ' ' : ''), colon: ': ', close: '' },
  { name: 'pretty', before: () => '\n      ', colon: ': ', close: '\n    ' },
  { name: 'tabs', before: () => '\n\t\t\t', colon: ': ', close: '\n\t\t' },
  { name: 'crlf', before: () => '\r\n      ', colon: ': ', close: '\r\n    ' },
  { name: 'spaced colon', before: (i) => (i ? ' ' : ''), colon: ' : ', close: ' ' },
  { name: 'long indent', before: () => '\n' + ' '.repeat(24), colon: ':  ', close: '\n' },
];

/** A separator change: the field's text (key, separator and value) it writes instead. */
type Edit = (fieldText: string, key: string, valueText: string, format: Format) => string;

const EDITS: Edit[] = [
  (_t, key, value, f) => `"${key}"${f.colon} ${value}`, // one more space before the value
  (_t, key, value, f) => `"${key}"${f.colon}\n${value}`, // a newline before the value
  (_t, key, value, f) => `"${key}" ${f.colon}${value}`, // a space before the colon
  (_t, key, value) => `"${key}":${value}`, // no space after the colon
  (_t, key, value) => `"${key}":\t${value}`, // a tab instead
  (_t, key, value, f) => `"${key}s"${f.colon}${value}`, // a longer key sharing the template's prefix
  (_t, key, value, f) => `"${key.slice(0, -1)}"${f.colon}${value}`, // a shorter one
  (_t, key, value, f) => `"\\u00${key.charCodeAt(0).toString(16)}${key.slice(1)}"${f.colon}${value}`, // an escaped key
  (_t, key, value, f) => `"${key.toUpperCase()}"${f.colon}${value}`,
  (t) => t.replace(/^"/, '"x": 1, "'), // another field first
  (_t, key, value, f) => `"${key}"${f.colon}${value}, "${key}"${f.colon}${value}`, // the key twice
  (t) => `/* note */ ${t}`, // not JSON
  (t) => t.replace(/:/, ';'),
  (_t, key, _value, f) => `"${key}"${f.colon}`, // no value
  (_t, key, _value, f) => `"${key}"${f.colon}true`,
  (_t, key, _value, f) => `"${key}"${f.colon}"1e3"`,
  (_t, key, _value, f) => `"${key}"${f.colon}1e3`,
  (_t, key, _value, f) => `"${key}"${f.colon}\u00a0"x"`, // a no-break space: no JSON whitespace
];

function write(list: Field[][], format: Format, edit?: { action: number; field: number; how: Edit }): string {
  const parts = list.map((fields, a) => {
    const body = fields.map(([key, value], i) => {
      const valueText = JSON.stringify(value);
      let text = `"${key}"${format.colon}${valueText}`;
      if (edit && edit.action === a && edit.field === i) text = edit.how(text, key, valueText, format);
      return format.before(i) + text;
    });
    return `{${body.join(',')}${format.close}}`;
  });
  return `{"actions": [${parts.join(', ')}]}`;
}

describe('the reader\'s separator templates', () => {
  it('read as the general parse does: each format after itself, after every other, and with one separator changed', () => {
    const rng = mulberry32(71);
    let probes = 0;
    for (let round = 0; round < 12; round++) {
      for (const teacher of FORMATS) {
        const list = actions(rng);
        const taught = write(list, teacher);
        for (const format of FORMATS) {
          expectExact(taught);
          expectExact(write(list, format));
          probes += 2;
        }
        // Each edit on each field of a shape and of a labeled arrow (the first action: no template reaches its brace).
        const action = 1 + (round % 2) * 3;
        for (const how of EDITS) {
          for (let field = 0; field < list[action].length; field++) {
            expectExact(taught);
            expectExact(write(list, teacher, { action, field, how }));
            probes += 2;
          }
        }
      }
    }
    expect(probes).toBeGreaterThan(4000);
  });

  it('leave a document cut right after a template\'s bytes, or inside them, to the general parse', () => {
    const rng = mulberry32(72);
    for (const format of FORMATS) {
      const text = write(actions(rng), format);
      for (let cut = 20; cut < text.length; cut += 1 + Math.floor(rng() * 3)) {
        expectExact(text);
        expectExact(text.slice(0, cut));
        expectExact(text.slice(0, cut) + ' ');
      }
    }
  });
});
