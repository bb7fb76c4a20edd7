import { describe, expect, it } from 'vitest';
import { executeCompletion } from '../../../src/diagram/language/execute.ts';
import { errorKindsOf } from '../../../src/diagram/language/error-kinds.ts';

const box = (id: string) => ({ type: 'create_shape', id, shape: 'rectangle', x: 0, y: 0, w: 100, h: 50, text: id });
const kindsOf = (completion: unknown, finish?: string) =>
  errorKindsOf(executeCompletion(typeof completion === 'string' ? completion : JSON.stringify(completion)).errors, finish);

describe('errorKindsOf', () => {
  it('names each kind from the messages the environment writes', () => {
    expect(kindsOf('sure, here is a diagram')).toEqual(['unparsed']);
    expect(kindsOf('{"actions": [')).toEqual(['unparsed']);
    expect(kindsOf({ actions: [] })).toEqual(['unparsed']);
    expect(kindsOf({ actions: [box('a'), { type: 'connect', from: 'a', to: 'a' }] })).toEqual(['self-arrow']);
    expect(kindsOf({ actions: [box('a'), box('a')] })).toEqual(['duplicate id']);
    expect(kindsOf({ actions: [box('a'), { type: 'connect', from: 'a', to: 'b' }, { type: 'connect', from: 'c', to: 'a' }] })).toEqual(['missing end']);
    expect(kindsOf({ actions: [{ type: 'create_shape', id: 'a', shape: 'blob', x: 0, y: 0, w: 1, h: 1, text: 'a' }, { ...box('b'), x: 'left' }] })).toEqual(['schema']);
    expect(kindsOf({ actions: [box('a'), box('b'), { type: 'connect', from: 'a', to: 'b' }] })).toEqual([]);
    expect(errorKindsOf(['tldraw: the editor crashed: boom'])).toEqual(['other']);
  });

  it('marks a completion cut by the token limit, beside its other kinds', () => {
    expect(kindsOf('{"actions": [{"type": "create_shape"', 'length')).toEqual(['unparsed', 'cut at the limit']);
    expect(kindsOf({ actions: [box('a'), box('a')] }, 'stop')).toEqual(['duplicate id']);
  });
});
