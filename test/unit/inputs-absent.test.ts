import * as z from 'zod/mini';
import { describe, expect, it } from 'vitest';
import { inputs, parseInput, type RouteInput } from '#shared/http/inputs.ts';
import type { RouteName } from '#shared/http/routes.ts';

describe('a request part that sends none of its fields', () => {
  it('parses to {} for every route, as the shortcut in parseInput assumes (no field has a default)', () => {
    for (const [name, declared] of Object.entries(inputs) as [RouteName, RouteInput][]) {
      for (const shape of [declared.query, declared.headers, declared.body]) {
        if (shape) expect(z.partial(z.object(shape)).parse({}), name).toEqual({});
      }
      const parsed = parseInput(name, {});
      expect(parsed.query, name).toEqual({});
      expect(parsed.headers, name).toEqual({});
    }
  });
});
