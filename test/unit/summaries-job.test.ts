import { describe, expect, it } from 'vitest';
import type { SummariesJobRecord } from '#shared/data/summaries.ts';
import { isSummariesJobId } from '#shared/ids.ts';
import { isAbandoned, newSummariesJobId, summariesJob, summariesJobStatus } from '#shared/summaries/job.ts';

// Summaries jobs: the job object both routes answer, and the ids they give out.

const record = (fields: Partial<SummariesJobRecord>): SummariesJobRecord => ({
  jobId: 'sj_AAAAAAAAAAAAAAAAAAAAAA',
  term: 'f26',
  course: 'big',
  state: 'queued',
  done: 0,
  total: 5000,
  requestedBy: 'instructor',
  createdAt: '2026-11-23T10:00:00.000Z',
  attempts: 0,
  ...fields,
});

describe('summariesJob', () => {
  it('answers a queued job with its progress and nulls for what is not known yet', () => {
    expect(summariesJob(record({}))).toEqual({
      job_id: 'sj_AAAAAAAAAAAAAAAAAAAAAA',
      course: 'f26/big',
      state: 'queued',
      progress: { done: 0, total: 5000 },
      requested_by: 'instructor',
      created_at: '2026-11-23T10:00:00.000Z',
      started_at: null,
      finished_at: null,
      summaries: null,
      generated_at: null,
      generation: null,
      message: 'Waiting on the summaries queue.',
    });
  });

  it('says how far a running job is, what a done one generated, and why a failed one failed', () => {
    expect(summariesJob(record({ state: 'running', done: 1500, startedAt: '2026-11-23T10:00:01.000Z' }))).toMatchObject({
      state: 'running',
      progress: { done: 1500, total: 5000 },
      started_at: '2026-11-23T10:00:01.000Z',
      message: 'Generating the summaries: 1500 of 5000 members done.',
    });
    const done = record({ state: 'done', done: 5000, summaries: 4998, generatedAt: '2026-11-23T10:00:01.000Z', generation: 'g' });
    expect(summariesJob(done)).toMatchObject({ summaries: 4998, generated_at: '2026-11-23T10:00:01.000Z', generation: 'g' });
    expect(summariesJob(done).message).toBe('Generated 4998 summaries.');
    expect(summariesJob({ ...done, summaries: 1 }).message).toBe('Generated 1 summary.');
    expect(summariesJob(record({ state: 'failed', message: 'The course no longer exists.' })).message).toBe('The course no longer exists.');
  });
});

describe('summariesJobStatus', () => {
  it('answers a job read from the course, and refuses a missing one as not found, echoing at most 64 characters of its id', () => {
    expect(summariesJobStatus('sj_AAAAAAAAAAAAAAAAAAAAAA', record({})).job_id).toBe('sj_AAAAAAAAAAAAAAAAAAAAAA');
    expect(() => summariesJobStatus('sj_AAAAAAAAAAAAAAAAAAAAAA', undefined)).toThrow(
      'No summaries job sj_AAAAAAAAAAAAAAAAAAAAAA in this course.',
    );
    expect(() => summariesJobStatus('x'.repeat(500), undefined)).toThrow(`No summaries job ${'x'.repeat(64)} in this course.`);
  });
});

describe('abandoned jobs', () => {
  const now = new Date('2026-11-23T12:00:00.000Z');
  const running = (attempts: number, leaseUntil: number) => record({ state: 'running', attempts, leaseUntil });

  it('are running jobs whose last delivery’s lease ran out, and nothing else', () => {
    expect(isAbandoned(running(3, now.getTime() - 1), now)).toBe(true);
    // A delivery is left (SQS brings the message back after its visibility time-out), or the lease still runs.
    expect(isAbandoned(running(2, now.getTime() - 1), now)).toBe(false);
    expect(isAbandoned(running(3, now.getTime() + 1), now)).toBe(false);
    expect(isAbandoned(record({ state: 'queued', attempts: 3 }), now)).toBe(false);
    expect(isAbandoned(record({ state: 'done', attempts: 3 }), now)).toBe(false);
  });

  it('read as failed, saying so, instead of running for ever', () => {
    const seen = summariesJobStatus('sj_AAAAAAAAAAAAAAAAAAAAAA', running(3, now.getTime() - 1), now);
    expect(seen.state).toBe('failed');
    expect(seen.message).toMatch(/stopped before finishing this job, on every delivery.*Ask again to retry/);
    expect(summariesJobStatus('sj_AAAAAAAAAAAAAAAAAAAAAA', running(2, now.getTime() - 1), now).state).toBe('running');
  });
});

describe('summaries job ids', () => {
  it('are sj_ and 128 random bits, and nothing else passes', () => {
    const ids = new Set(Array.from({ length: 100 }, newSummariesJobId));
    expect(ids.size).toBe(100);
    for (const id of ids) expect(isSummariesJobId(id), id).toBe(true);
    for (const bad of ['', 'sj_', 'sj_short', 'rg_AAAAAAAAAAAAAAAAAAAAAA', 'sj_AAAAAAAAAAAAAAAAAAAAA/', 'job#sj_AAAAAAAAAAAAAAAAAAAAAA']) {
      expect(isSummariesJobId(bad), bad).toBe(false);
    }
  });
});
