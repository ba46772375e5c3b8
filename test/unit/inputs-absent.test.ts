import * as z from 'zod/mini';
import { describe, expect, it } from 'vitest';
import { parseInput, routes, type RouteName } from '#functions/definitions.ts';
import { Refusal } from '#shared/errors.ts';
import { missingFailure } from '#shared/http/fields.ts';
import { inputOf } from '#shared/http/request.ts';

describe('a request part that sends none of its fields', () => {
  it('parses to {} for every route (no field has a default), or is refused for a required field', () => {
    for (const name of Object.keys(routes) as RouteName[]) {
      const declared = inputOf(routes[name]);
      for (const shape of [declared.query, declared.headers, declared.body]) {
        if (shape) expect(z.partial(z.object(shape)).parse({}), name).toEqual({});
      }
      const required = [declared.query, declared.headers, declared.body].some((shape) =>
        Object.values(shape ?? {}).some((schema) => missingFailure(schema)),
      );
      if (required) {
        expect(() => parseInput(name, {}), name).toThrow(Refusal);
        continue;
      }
      const parsed = parseInput(name, {});
      expect(parsed.query, name).toEqual({});
      expect(parsed.headers, name).toEqual({});
    }
  });
});
