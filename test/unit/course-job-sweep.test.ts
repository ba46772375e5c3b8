import { describe, expect, it } from 'vitest';
import type { UnfinishedCourseJob } from '#shared/data/course-jobs.ts';
import { MAX_COURSE_JOB_RESENDS, SWEEP_GRACE_MS, sweepStep } from '#shared/summaries/sweep.ts';
import { SUMMARIES_JOB_MAX_DELIVERIES } from '#shared/summaries/queue.ts';

const now = new Date('2026-10-01T12:00:00Z');
const ago = (ms: number) => now.getTime() - ms;
const minute = 60_000;
const job = (fields: Partial<UnfinishedCourseJob> = {}): UnfinishedCourseJob => ({
  key: { courseId: 's26/cs1#jobs', entry: 'job#sj_x' },
  term: 's26',
  course: 'cs1',
  state: 'queued',
  createdAt: new Date(ago(SWEEP_GRACE_MS + 1)).toISOString(),
  attempts: 0,
  resends: 0,
  ...fields,
});

describe('the course job sweep', () => {
  it('leaves a queued job its grace, far beyond a request’s time limit, then sends it again', () => {
    expect(sweepStep(job({ createdAt: new Date(ago(30_000)).toISOString() }), now)).toBe('wait');
    expect(sweepStep(job({ createdAt: new Date(ago(SWEEP_GRACE_MS - 1)).toISOString() }), now)).toBe('wait');
    expect(sweepStep(job(), now)).toBe('resend');
  });

  it('waits four times longer after each resend, then fails a job whose message was lost every time', () => {
    expect(sweepStep(job({ resends: 1, resentAt: ago(4 * SWEEP_GRACE_MS - 1) }), now)).toBe('wait');
    expect(sweepStep(job({ resends: 1, resentAt: ago(4 * SWEEP_GRACE_MS + 1) }), now)).toBe('resend');
    expect(sweepStep(job({ resends: 2, resentAt: ago(16 * SWEEP_GRACE_MS + 1) }), now)).toBe('resend');
    const last = job({ resends: MAX_COURSE_JOB_RESENDS, resentAt: ago(64 * SWEEP_GRACE_MS - 1) });
    expect(sweepStep(last, now)).toBe('wait');
    expect(sweepStep({ ...last, resentAt: ago(64 * SWEEP_GRACE_MS + 1) }, now)).toBe('never-started');
  });

  it('leaves a running job to its worker while the lease holds, then sends it again to be taken over', () => {
    const running = job({ state: 'running', attempts: 1, createdAt: new Date(ago(30 * minute)).toISOString() });
    expect(sweepStep({ ...running, leaseUntil: now.getTime() + 1 }, now)).toBe('wait');
    expect(sweepStep({ ...running, leaseUntil: now.getTime() - 1 }, now)).toBe('resend');
    expect(sweepStep({ ...running }, now)).toBe('resend');
  });

  it('fails a running job whose lease ran out after every delivery the queue makes, or after every resend', () => {
    const expired = job({ state: 'running', leaseUntil: ago(1), createdAt: new Date(ago(60 * minute)).toISOString() });
    expect(sweepStep({ ...expired, attempts: SUMMARIES_JOB_MAX_DELIVERIES - 1 }, now)).toBe('resend');
    expect(sweepStep({ ...expired, attempts: SUMMARIES_JOB_MAX_DELIVERIES }, now)).toBe('abandoned');
    // Abandoned at once, however recent its last resend.
    expect(sweepStep({ ...expired, attempts: SUMMARIES_JOB_MAX_DELIVERIES, resends: 1, resentAt: ago(1) }, now)).toBe('abandoned');
    expect(sweepStep({ ...expired, attempts: 1, resends: MAX_COURSE_JOB_RESENDS, resentAt: ago(2 * 60 * minute * 4) }, now)).toBe(
      'abandoned',
    );
    // Its lease still holding, a job is never failed.
    expect(sweepStep({ ...expired, attempts: SUMMARIES_JOB_MAX_DELIVERIES, leaseUntil: now.getTime() + 1 }, now)).toBe('wait');
  });
});
