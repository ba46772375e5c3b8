import { describe, expect, it } from 'vitest';
import { queueEtaSeconds, RECENT_JOBS_MS } from '#shared/submissions/queue-estimate.ts';

const now = new Date('2026-11-29T12:00:00Z');
/** A job that took `seconds` and ended `endedAgo` seconds before now. */
const job = (seconds: number, endedAgo = 0) => ({ seconds, endedAt: now.getTime() - endedAgo * 1000 });

describe('the queue estimate', () => {
  it('is null for a version not queued, and while no job ended lately', () => {
    expect(queueEtaSeconds(0, [job(10)], now)).toBeNull();
    expect(queueEtaSeconds(-1, [job(10)], now)).toBeNull();
    expect(queueEtaSeconds(3, undefined, now)).toBeNull();
    expect(queueEtaSeconds(3, [], now)).toBeNull();
    expect(queueEtaSeconds(3, [job(10, RECENT_JOBS_MS / 1000 + 1)], now)).toBeNull();
  });

  it('is the place times the mean job time with one job at a time', () => {
    // Three jobs of 10 s one after another.
    expect(queueEtaSeconds(1, [job(10, 20), job(10, 10), job(10, 0)], now)).toBe(10);
    expect(queueEtaSeconds(4, [job(10, 20), job(10, 10), job(10, 0)], now)).toBe(40);
  });

  it('divides by the jobs graded at once lately', () => {
    // Four workers, each ending a 20 s job at the same moment: four at a time.
    const together = [job(20), job(20), job(20), job(20)];
    expect(queueEtaSeconds(8, together, now)).toBe(40);
    // Two pairs, one after the other: two at a time over 40 s.
    const pairs = [job(20, 20), job(20, 20), job(20), job(20)];
    expect(queueEtaSeconds(8, pairs, now)).toBe(80);
  });

  it('leaves out jobs that ended too long ago', () => {
    expect(queueEtaSeconds(2, [job(100, RECENT_JOBS_MS / 1000 + 5), job(5)], now)).toBe(10);
  });
});
