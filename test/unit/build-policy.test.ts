import { describe, expect, it } from 'vitest';
import type { QueueShard } from '#shared/data/jobs.ts';
import {
  billedMinutes,
  buildsWanted,
  crossesBilledMinute,
  liveSessions,
  nextJobSeconds,
  queuedJobs,
  startsBuild,
  takesNextJob,
} from '#shared/grading/builds/policy.ts';

// How many CodeBuild builds a grading queue is worth, and when a waking worker starts one.

const demand = { queued: 300, running: 0, concurrency: 20, jobSeconds: 6, buildSeconds: 100 };

describe('builds wanted for a queue', () => {
  it('gives each build about buildSeconds of jobs: 300 jobs of 6 s at 100 s a build is 18 builds', () => {
    expect(buildsWanted(demand)).toBe(18);
  });

  it('never more than the concurrency, never fewer than one for a queued job, none for an empty queue', () => {
    expect(buildsWanted({ ...demand, jobSeconds: 60 })).toBe(20);
    expect(buildsWanted({ ...demand, queued: 1, jobSeconds: 1 })).toBe(1);
    expect(buildsWanted({ ...demand, queued: 0 })).toBe(0);
    expect(buildsWanted({ ...demand, queued: 0, jobSeconds: Number.POSITIVE_INFINITY })).toBe(0);
  });

  it('without a measured job time, up to the concurrency (a build per wake-up, as before)', () => {
    expect(buildsWanted({ ...demand, queued: 3, jobSeconds: Number.POSITIVE_INFINITY })).toBe(20);
    expect(buildsWanted({ ...demand, queued: 3, jobSeconds: Number.POSITIVE_INFINITY, concurrency: Number.POSITIVE_INFINITY })).toBe(
      Number.POSITIVE_INFINITY,
    );
  });
});

describe('a waking worker', () => {
  it('starts a build while fewer run than the queue is worth, and declines once enough run', () => {
    expect(startsBuild({ ...demand, running: 17 })).toBe(true);
    expect(startsBuild({ ...demand, running: 18 })).toBe(false);
    expect(startsBuild({ ...demand, queued: 10, running: 1 })).toBe(false);
  });

  it('starts one when none runs and a job is queued, however short; none for an empty queue', () => {
    expect(startsBuild({ ...demand, queued: 1, running: 0, jobSeconds: 0.1 })).toBe(true);
    expect(startsBuild({ ...demand, queued: 0, running: 0 })).toBe(false);
  });
});

describe('the sessions counted', () => {
  it('leaves out those whose time ran out (a dead worker holds no place for ever)', () => {
    expect(liveSessions({ a: 2_000, b: 1_000, c: 999 }, 1_000)).toEqual({ a: 2_000 });
  });
});

describe('the job time estimate', () => {
  it('starts at the first measure, then moves a quarter of the way to each new one; ignores non-positive measures', () => {
    expect(nextJobSeconds(undefined, 8)).toBe(8);
    expect(nextJobSeconds(8, 4)).toBe(7);
    expect(nextJobSeconds(8, 0)).toBe(8);
    expect(nextJobSeconds(undefined, Number.NaN)).toBe(0);
  });
});

describe('jobs queued', () => {
  it('counts the tickets queued on every counter, every lane’s', () => {
    const counters: QueueShard[] = [
      { shard: 0, queued: [11, 12, 13] },
      { shard: 1, queued: [] },
      { shard: 2, queued: [3 * 2 ** 50 + 1, 3 * 2 ** 50 + 2] },
    ];
    expect(queuedJobs(counters)).toBe(3 + 0 + 2);
  });
});

describe('a build about to take its next job', () => {
  const next = { elapsedSeconds: 100, jobSeconds: 6, queued: 20, others: 10 };

  it('counts billed minutes as CodeBuild does: each started minute, at least one', () => {
    expect([billedMinutes(0), billedMinutes(1), billedMinutes(60), billedMinutes(60.5), billedMinutes(119)]).toEqual([1, 1, 1, 2, 2]);
  });

  it('sees whether the next job ends in a later billed minute than the one running now', () => {
    // The running job ends about 100 + 6 + 3 = 109 s in; the next at 115 s: the same second minute.
    expect(crossesBilledMinute(100, 6)).toBe(false);
    // 110 + 6 + 3 = 119 s, then 125 s: a third minute.
    expect(crossesBilledMinute(110, 6)).toBe(true);
    expect(crossesBilledMinute(110, Number.POSITIVE_INFINITY)).toBe(false);
    expect(crossesBilledMinute(110, 0)).toBe(false);
  });

  it('takes it while it stays in the minute already billed', () => {
    expect(takesNextJob(next)).toBe(true);
  });

  it('stops before a new billed minute it would use at most a quarter of: the queue over it and the others is done by then', () => {
    // Its job ends 119 s in, at the end of its second minute; 20 jobs of 6 s over 11 builds are done about 11 s later.
    expect(takesNextJob({ ...next, elapsedSeconds: 110 })).toBe(false);
    // 25 jobs: 14 s later, still at most a quarter of a minute.
    expect(takesNextJob({ ...next, elapsedSeconds: 110, queued: 25 })).toBe(false);
  });

  it('goes on when the queue would fill more than a quarter of that minute, when it is alone, or without a job time', () => {
    // 30 jobs: 16 s into the third minute.
    expect(takesNextJob({ ...next, elapsedSeconds: 110, queued: 30 })).toBe(true);
    expect(takesNextJob({ ...next, elapsedSeconds: 110, queued: 200 })).toBe(true);
    expect(takesNextJob({ ...next, elapsedSeconds: 110, others: 0 })).toBe(true);
    expect(takesNextJob({ ...next, elapsedSeconds: 110, jobSeconds: Number.POSITIVE_INFINITY })).toBe(true);
  });
});
