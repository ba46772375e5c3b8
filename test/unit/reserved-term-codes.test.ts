import { describe, expect, it } from 'vitest';
import { routeKeys } from '#functions/definitions.ts';
import { RESERVED_TERM_CODES } from '#shared/courses/terms.ts';

const segments = (path: string) => path.split('/');
const isParameter = (segment: string) => segment.startsWith('{');

describe('reserved term codes', () => {
  it('hold every literal that a route puts where another route has the term, so no course path is shadowed', () => {
    const shadowing = new Set<string>();
    for (const termRoute of routeKeys) {
      const termAt = segments(termRoute.path).indexOf('{semester}');
      if (termAt < 0) continue;
      for (const other of routeKeys) {
        const [mine, theirs] = [segments(termRoute.path), segments(other.path)];
        if (other.method !== termRoute.method || theirs.length !== mine.length || isParameter(theirs[termAt]!)) continue;
        // The other route would answer a request for this term's path when every other segment fits.
        const fits = mine.every(
          (segment, at) => at === termAt || segment === theirs[at] || isParameter(segment) || isParameter(theirs[at]!),
        );
        if (fits) shadowing.add(theirs[termAt]!);
      }
    }
    expect([...shadowing].filter((code) => !RESERVED_TERM_CODES.has(code))).toEqual([]);
    expect(shadowing.size).toBeGreaterThan(0);
  });
});
