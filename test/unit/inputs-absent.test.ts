import * as z from 'zod/mini';
import { describe, expect, it } from 'vitest';
import { parseInput, routes, type RouteName } from '#functions/definitions.ts';
import { inputOf } from '#shared/http/request.ts';

describe('a request part that sends none of its fields', () => {
  it('parses to {} for every route, as the shortcut in parseInput assumes (no field has a default)', () => {
    for (const name of Object.keys(routes) as RouteName[]) {
      const declared = inputOf(routes[name]);
      for (const shape of [declared.query, declared.headers, declared.body]) {
        if (shape) expect(z.partial(z.object(shape)).parse({}), name).toEqual({});
      }
      const parsed = parseInput(name, {});
      expect(parsed.query, name).toEqual({});
      expect(parsed.headers, name).toEqual({});
    }
  });
});
