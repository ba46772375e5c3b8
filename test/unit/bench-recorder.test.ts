import { describe, expect, it } from 'vitest';
import { waves, type RecordedRequest } from '../../bench/recorder.ts';

const request = (operation: string, start: number, end: number): RecordedRequest => ({ operation, input: {}, start, end });

describe('bench round trips (waves)', () => {
  it('counts requests in flight together once', () => {
    expect(waves([request('BatchGetItem', 0, 5), request('Query', 1, 6)]).length).toBe(1);
  });

  it('counts a request that waited for an earlier one again, even while another is still in flight', () => {
    // The token check's BatchGetItem and a Query alongside it; a BatchGetItem started once the
    // Query ended (while the token check still ran) waited for it: two round trips, not one.
    const trips = waves([request('BatchGetItem', 0, 10), request('Query', 0, 4), request('BatchGetItem', 5, 9)]);
    expect(trips.map((wave) => wave.map((r) => r.operation))).toEqual([['BatchGetItem', 'Query'], ['BatchGetItem']]);
  });

  it('counts the longest chain of requests that followed each other', () => {
    const chain = [request('BatchGetItem', 0, 2), request('Query', 3, 5), request('BatchGetItem', 6, 8), request('Query', 0, 1)];
    expect(waves(chain).length).toBe(3);
    expect(waves([]).length).toBe(0);
  });
});
