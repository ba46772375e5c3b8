import { describe, expect, it } from 'vitest';
import type { ScoreDelivery } from '#shared/data/lti-scores.ts';
import {
  answerMeaning,
  hasGradeToPublish,
  replayedDelivery,
  replayRefusal,
  retryDelaySeconds,
  SCORE_SCOPE,
  scoreOf,
  scoresUrl,
  takesScores,
} from '#shared/lti/scores.ts';

const grades = (scope: string[], lineitems: string | null = 'https://lms.example.edu/courses/1/lineitems') => ({
  grades: { lineitems, lineitem: null, scope },
});

describe('what is sent for a grade', () => {
  it('sends the total out of the gradeable’s points, Completed and FullyGraded, timestamped with the grade’s own time', () => {
    expect(scoreOf({ total: 7.5, maximum: 10, queued: false, taPending: false }, 'lms-sub', '2026-11-29T11:00:00.123Z')).toEqual({
      userId: 'lms-sub',
      scoreGiven: 7.5,
      scoreMaximum: 10,
      activityProgress: 'Completed',
      gradingProgress: 'FullyGraded',
      timestamp: '2026-11-29T11:00:00.123Z',
    });
  });

  it('is PendingManual while TA grading remains, Submitted and Pending while a version is queued', () => {
    expect(scoreOf({ total: 3, maximum: 10, queued: false, taPending: true }, 's', 't')).toMatchObject({
      activityProgress: 'Completed',
      gradingProgress: 'PendingManual',
    });
    expect(scoreOf({ total: 0, maximum: 10, queued: true, taPending: false }, 's', 't')).toMatchObject({
      activityProgress: 'Submitted',
      gradingProgress: 'Pending',
    });
  });

  it('posts to <lineitem>/scores in the path, keeping a line item URL’s query (Moodle’s)', () => {
    expect(scoresUrl('https://moodle.example.edu/mod/lti/services.php/2/lineitems/7/lineitem?type_id=1').href).toBe(
      'https://moodle.example.edu/mod/lti/services.php/2/lineitems/7/lineitem/scores?type_id=1',
    );
    expect(scoresUrl('https://canvas.example.edu/api/lti/courses/1/line_items/5/').href).toBe(
      'https://canvas.example.edu/api/lti/courses/1/line_items/5/scores',
    );
  });

  it('sends only to a linked LMS course whose grade service grants the score scope and names its line items', () => {
    expect(takesScores(grades([SCORE_SCOPE]))).toBe(true);
    expect(takesScores(grades(['https://purl.imsglobal.org/spec/lti-ags/scope/lineitem']))).toBe(false);
    expect(takesScores(grades([SCORE_SCOPE], null))).toBe(false);
    expect(takesScores({ grades: null })).toBe(false);
  });
});

describe('what an answer of the LMS means', () => {
  it('is sent on any 2xx', () => {
    for (const status of [200, 201, 204]) expect(answerMeaning(status, '', undefined)).toEqual({ kind: 'sent' });
  });

  it('is retried on 429, 5xx, Canvas’s 403 "Rate Limit Exceeded" and no answer, after the Retry-After given', () => {
    expect(answerMeaning(429, '', 30)).toEqual({ kind: 'retry', afterSeconds: 30 });
    expect(answerMeaning(503, '', 60)).toEqual({ kind: 'retry', afterSeconds: 60 });
    expect(answerMeaning(500, '', undefined)).toEqual({ kind: 'retry' });
    expect(answerMeaning(403, '403 Forbidden (Rate Limit Exceeded)', undefined)).toEqual({ kind: 'retry' });
    expect(answerMeaning(null, 'connection refused', undefined)).toEqual({ kind: 'retry' });
  });

  it('fails, not retried, on any other answer: a 4xx for this student', () => {
    for (const status of [400, 401, 403, 404, 422]) expect(answerMeaning(status, 'User not found', 5)).toEqual({ kind: 'failed' });
  });

  it('waits the schedule’s delay or the Retry-After when longer, and stops when the schedule is spent', () => {
    expect(retryDelaySeconds(1, [5, 300], undefined)).toBe(5);
    expect(retryDelaySeconds(1, [5, 300], 60)).toBe(60);
    expect(retryDelaySeconds(2, [5, 300], 60)).toBe(300);
    expect(retryDelaySeconds(3, [5, 300], 60)).toBeUndefined();
  });
});

describe('replaying a delivery and publishing a gradeable', () => {
  const failed: ScoreDelivery = {
    term: 'f26',
    course: 'cs1',
    gradeableId: 'hw',
    userId: 'ann',
    ownerId: 'ann',
    registrationId: 'lti_x',
    contextId: 'ctx',
    deliveryId: 'ls_x',
    state: 'failed',
    gradedAt: '2026-11-29T10:00:00.000Z',
    reason: 'HTTP 422: not a student',
    attempts: [
      { at: '2026-11-29T10:00:01.000Z', status: 500, retryInSeconds: 5 },
      { at: '2026-11-29T10:00:06.000Z', status: 422, error: 'HTTP 422: not a student' },
    ],
    roundStart: 0,
    lastSent: null,
    nextAttemptAt: null,
    updatedAt: '2026-11-29T10:00:06.000Z',
  };

  it('replays a failed, skipped or sent delivery, not one whose next try is queued unless that try is an hour overdue', () => {
    const now = new Date('2026-11-29T12:00:00.000Z');
    const at = (iso: string) => ({ updatedAt: iso, nextAttemptAt: null });
    expect(replayRefusal(failed, now)).toBeUndefined();
    expect(replayRefusal({ state: 'skipped', ...at('2026-11-29T11:59:00.000Z') }, now)).toBeUndefined();
    expect(replayRefusal({ state: 'sent', ...at('2026-11-29T11:59:00.000Z') }, now)).toBeUndefined();
    expect(replayRefusal({ state: 'pending', ...at('2026-11-29T11:59:00.000Z') }, now)).toBe('pending');
    // Claimed and never tried: stuck once an hour has passed since.
    expect(replayRefusal({ state: 'pending', ...at('2026-11-29T11:00:00.000Z') }, now)).toBe('pending');
    expect(replayRefusal({ state: 'pending', ...at('2026-11-29T10:59:59.000Z') }, now)).toBeUndefined();
    // Waiting for a retry due later (a long Retry-After), or due an hour ago and not made.
    const waiting = { state: 'pending' as const, updatedAt: '2026-11-29T08:00:00.000Z' };
    expect(replayRefusal({ ...waiting, nextAttemptAt: '2026-11-29T13:00:00.000Z' }, now)).toBe('pending');
    expect(replayRefusal({ ...waiting, nextAttemptAt: '2026-11-29T10:30:00.000Z' }, now)).toBeUndefined();
  });

  it('makes a replayed delivery pending in a new round, its tries kept and its retries counted afresh, its grade unchanged', () => {
    const now = new Date('2026-11-29T12:00:00.000Z');
    expect(replayedDelivery(failed, now)).toEqual({
      ...failed,
      state: 'pending',
      reason: null,
      roundStart: 2,
      nextAttemptAt: null,
      updatedAt: '2026-11-29T12:00:00.000Z',
    });
  });

  it('publishes a submission with an active version or a TA grade of some component, not one cancelled or never graded', () => {
    const component = { mark_ids: [], custom_points: 1, custom_message: '', grader_id: 'ta', graded_at: '2026-11-29T10:00:00.000Z' };
    expect(hasGradeToPublish({ activeVersion: 1 })).toBe(true);
    expect(hasGradeToPublish({ activeVersion: 0, taGrade: { components: { '0': component }, revision: 1 } })).toBe(true);
    expect(hasGradeToPublish({ activeVersion: 0 })).toBe(false);
    expect(hasGradeToPublish({ activeVersion: 0, taGrade: { components: {}, revision: 2 } })).toBe(false);
  });
});
