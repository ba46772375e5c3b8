import { describe, expect, it } from 'vitest';
import { pageOfGeneration, type EarlyPage } from '#shared/summaries/list.ts';

const entry = (generation: string, userId: string, padding = 0) => ({
  generation,
  userId,
  document: JSON.stringify({ user_id: userId, padding: 'x'.repeat(padding) }),
});
const early = (entries: EarlyPage['entries'], options: Partial<EarlyPage> = {}): EarlyPage => ({
  fromStart: true,
  exhausted: true,
  entries,
  ...options,
});
const ids = (page: ReturnType<typeof pageOfGeneration>) => page && { users: page.summaries.map((s) => s.user_id), more: page.more };
const bounds = { size: 2, maxBytes: 1_000_000 };

describe('a summaries page cut from entries read before the generation was known', () => {
  it('takes the current generation up to the page size, and tells that more follow', () => {
    const read = early([entry('g2', 'a'), entry('g2', 'b'), entry('g2', 'c')], { exhausted: false });
    expect(ids(pageOfGeneration(read, 'g2', bounds))).toEqual({ users: ['a', 'b'], more: true });
  });

  it('ends at the first entry of a later generation (a run still writing)', () => {
    const read = early([entry('g2', 'a'), entry('g3', 'a'), entry('g3', 'b')], { exhausted: false });
    expect(ids(pageOfGeneration(read, 'g2', bounds))).toEqual({ users: ['a'], more: false });
    expect(ids(pageOfGeneration(early([]), 'g2', bounds))).toEqual({ users: [], more: false });
  });

  it('cannot tell the page when an older generation comes first from the start, or the read ended short', () => {
    expect(pageOfGeneration(early([entry('g1', 'a'), entry('g2', 'a')], { exhausted: false }), 'g2', bounds)).toBeUndefined();
    expect(pageOfGeneration(early([entry('g2', 'a')], { exhausted: false }), 'g2', bounds)).toBeUndefined();
    // After a cursor the entries start inside the cursor's generation.
    const afterCursor = early([entry('g2', 'c')], { fromStart: false });
    expect(ids(pageOfGeneration(afterCursor, 'g2', bounds))).toEqual({ users: ['c'], more: false });
  });

  it('stops before the summary whose JSON passes the byte bound (keeping at least one)', () => {
    const read = early([entry('g2', 'a', 600), entry('g2', 'b', 600)], { exhausted: false });
    expect(ids(pageOfGeneration(read, 'g2', { size: 10, maxBytes: 1_000 }))).toEqual({ users: ['a'], more: true });
  });
});
