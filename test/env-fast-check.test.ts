import { describe, expect, it } from 'vitest';
import { CreateShape, Connect, UpdateShape, DeleteShape, Disconnect } from '../src/env/actions.ts';
import { compileObjectCheck } from '../src/env/fast-check.ts';
import { z } from 'zod';

const POOL: unknown[] = [undefined, null, true, false, 0, -1, 0.5, 1, 999.5, 1000, 1000.0001, 1e9, -1e9, NaN, Infinity, -Infinity, '', 'a', 'rectangle', 'diamond', 'hexagon', 'create_shape', 'connect', 'update_shape', 'delete_shape', 'disconnect', [], {}, [1]];

describe('compileObjectCheck', () => {
  it.each([
    ['create_shape', CreateShape],
    ['connect', Connect],
    ['update_shape', UpdateShape],
    ['delete_shape', DeleteShape],
    ['disconnect', Disconnect],
  ] as const)('agrees with zod on %s for every field value in a pool', (_name, schema) => {
    const check = compileObjectCheck(schema);
    const keys = Object.keys((schema as z.ZodObject).shape);
    const valid: Record<string, unknown> = { type: _name, id: 'a', from: 'a', to: 'b', shape: 'ellipse', x: 1, y: 2, w: 3, h: 4, text: 't' };
    let compared = 0;
    for (const key of keys) {
      for (const v of POOL) {
        const action = { ...valid, [key]: v };
        expect(check(action), `${key} = ${String(v)}`).toBe(schema.safeParse(action).success);
        compared++;
      }
    }
    // pairs of fields at once catch checks that stop too early
    for (const k1 of keys) for (const k2 of keys) for (const v of [undefined, NaN, 'hexagon', 0]) {
      const action = { ...valid, [k1]: v, [k2]: 5 };
      expect(check(action)).toBe(schema.safeParse(action).success);
      compared++;
    }
    expect(compared).toBeGreaterThan(50);
  });

  it('refuses schemas it cannot compile instead of guessing', () => {
    expect(() => compileObjectCheck(z.object({ a: z.string().email() }))).toThrow(/unsupported/);
    expect(() => compileObjectCheck(z.object({ a: z.array(z.string()) }))).toThrow(/unsupported schema type array/);
  });
});
