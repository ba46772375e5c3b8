import { beforeAll, describe, expect, it, vi } from 'vitest';
import type { ScoreDelivery } from '#shared/data/lti-scores.ts';
import type { GradeableDocument } from '#shared/gradeables/gradeable.ts';
import {
  ltiGradeableFollowUp,
  ltiLateDaysOutbox,
  ltiMessageId,
  ltiScoreOutbox,
  ltiSettingFollowUp,
  type LtiScoreMessage,
} from '#shared/lti/score-queue.ts';
import {
  answerMeaning,
  changeIdsWith,
  gradeStanding,
  hasGradeToPublish,
  lineItemMaximumStale,
  totalsTouch,
  replayedDelivery,
  replacedTotalsReach,
  replayRefusal,
  retryDelaySeconds,
  SCORE_SCOPE,
  scoreDiffers,
  scoreOf,
  scoresUrl,
  takesScores,
} from '#shared/lti/scores.ts';

const grades = (scope: string[], lineitems: string | null = 'https://lms.example.edu/courses/1/lineitems') => ({
  grades: { lineitems, lineitem: null, scope },
});

describe('what is sent for a grade', () => {
  it('sends the total out of the gradeable’s points, Completed and FullyGraded, timestamped with the grade’s own time', () => {
    expect(
      scoreOf({ total: 7.5, maximum: 10, queued: false, taPending: false, failed: false }, 'lms-sub', '2026-11-29T11:00:00.123Z'),
    ).toEqual({
      userId: 'lms-sub',
      scoreGiven: 7.5,
      scoreMaximum: 10,
      activityProgress: 'Completed',
      gradingProgress: 'FullyGraded',
      timestamp: '2026-11-29T11:00:00.123Z',
    });
  });

  it('is PendingManual while TA grading remains, Submitted and Pending while a version is queued', () => {
    expect(scoreOf({ total: 3, maximum: 10, queued: false, taPending: true, failed: false }, 's', 't')).toMatchObject({
      activityProgress: 'Completed',
      gradingProgress: 'PendingManual',
    });
    expect(scoreOf({ total: 0, maximum: 10, queued: true, taPending: false, failed: false }, 's', 't')).toMatchObject({
      activityProgress: 'Submitted',
      gradingProgress: 'Pending',
    });
  });

  it('is Failed, without a score, when the active version’s autograding failed, whatever the rubric still holds', () => {
    const failed = { userId: 's', activityProgress: 'Completed', gradingProgress: 'Failed', timestamp: 't' };
    expect(scoreOf({ total: 0, maximum: 10, queued: false, taPending: false, failed: true }, 's', 't')).toEqual(failed);
    expect(scoreOf({ total: 4, maximum: 10, queued: false, taPending: true, failed: true }, 's', 't')).toEqual(failed);
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
    changeIds: ['c1'],
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

describe('what a change of totals sends again', () => {
  const sent = scoreOf({ total: 0, maximum: 10, queued: false, taPending: false, failed: false }, 'lms-amy', '2026-11-29T11:00:00.000Z');
  const delivery = (fields: Partial<Parameters<typeof totalsTouch>[1]> = {}) => ({
    gradeableId: 'hw1',
    userId: 'amy',
    registrationId: 'lti_1',
    contextId: 'ctx',
    state: 'sent' as const,
    lastSent: sent,
    ...fields,
  });
  const linked = new Set(['lti_1 ctx']);

  it('looks at the scores the LMS took of the student granted late days, or of every student when the course’s change', () => {
    expect(totalsTouch({ userId: 'amy' }, delivery(), linked)).toBe(true);
    expect(totalsTouch({ userId: 'bob' }, delivery(), linked)).toBe(false);
    expect(totalsTouch({}, delivery(), linked)).toBe(true);
    expect(totalsTouch({}, delivery({ userId: 'bob' }), linked)).toBe(true);
    // A newer grade on its way is looked at too: its send may come before the change's.
    expect(totalsTouch({}, delivery({ state: 'pending' }), linked)).toBe(true);
  });

  it('looks at the scores of the gradeable whose points were replaced alone, of every student', () => {
    expect(totalsTouch({ gradeableId: 'hw1' }, delivery(), linked)).toBe(true);
    expect(totalsTouch({ gradeableId: 'hw1' }, delivery({ userId: 'bob' }), linked)).toBe(true);
    expect(totalsTouch({ gradeableId: 'hw2' }, delivery(), linked)).toBe(false);
    expect(totalsTouch({ gradeableId: 'hw1' }, delivery({ lastSent: null }), linked)).toBe(false);
  });

  it('leaves alone a score never taken, refused or skipped, and a course no longer linked or taking scores', () => {
    expect(totalsTouch({}, delivery({ lastSent: null }), linked)).toBe(false);
    expect(totalsTouch({}, delivery({ state: 'failed' }), linked)).toBe(false);
    expect(totalsTouch({}, delivery({ state: 'skipped' }), linked)).toBe(false);
    expect(totalsTouch({}, delivery({ contextId: 'other' }), linked)).toBe(false);
    expect(totalsTouch({}, delivery(), new Set())).toBe(false);
  });

  it('sends again only a score that differs in more than its time', () => {
    const now = (grade: Partial<Parameters<typeof scoreOf>[0]>, userId = 'lms-amy') =>
      scoreOf({ total: 0, maximum: 10, queued: false, taPending: false, failed: false, ...grade }, userId, '2026-11-30T09:00:00.000Z');
    expect(scoreDiffers(sent, now({}))).toBe(false);
    expect(scoreDiffers(sent, now({ total: 10 }))).toBe(true);
    expect(scoreDiffers(sent, now({ maximum: 12 }))).toBe(true);
    expect(scoreDiffers(sent, now({ taPending: true, failed: false }))).toBe(true);
    expect(scoreDiffers(sent, now({ queued: true }))).toBe(true);
    expect(scoreDiffers(sent, now({ failed: true }))).toBe(true);
    expect(scoreDiffers(sent, now({}, 'lms-amy-2'))).toBe(true);
  });
});

const doc = (fields: Record<string, unknown>) =>
  ({
    id: 'hw1',
    title: 'Hw',
    type: 'Electronic File',
    ta_grading: true,
    rubric: [],
    dates: { submission_due_date: '2026-11-20T04:59:59.000Z', late_days: 0 },
    ...fields,
  }) as unknown as GradeableDocument;

describe('which totals a gradeable’s replacement may change', () => {
  const dates = { submission_due_date: '2026-11-20T04:59:59.000Z', late_days: 0 };
  const before = doc({ rubric: [{ id: 1, max_value: 5 }], autograding: { test_cases: [{ points_available: 3 }] } });
  const after = (fields: Record<string, unknown>) => doc({ rubric: before.rubric, autograding: before.autograding, ...fields });

  it('its own, when its points or how they are given change', () => {
    expect(replacedTotalsReach(before, after({}))).toBe('none');
    expect(replacedTotalsReach(before, after({ rubric: [{ id: 1, max_value: 6 }] }))).toBe('gradeable');
    expect(replacedTotalsReach(before, after({ autograding: { test_cases: [{ points_available: 4 }] } }))).toBe('gradeable');
    expect(replacedTotalsReach(before, after({ ta_grading: false }))).toBe('gradeable');
  });

  it('every gradeable’s, when its type, due date or late days allowed change (a student’s late days run across them)', () => {
    expect(replacedTotalsReach(before, after({ dates: { ...dates, late_days: 1 } }))).toBe('course');
    expect(replacedTotalsReach(before, after({ dates: { ...dates, submission_due_date: '2026-11-21T04:59:59.000Z' } }))).toBe('course');
    expect(replacedTotalsReach(before, after({ dates: { ...dates, has_due_date: false } }))).toBe('course');
    expect(replacedTotalsReach(before, after({ type: 'Numeric' }))).toBe('course');
  });

  it('none, when neither changes: its title, another date', () => {
    expect(replacedTotalsReach(before, after({ title: 'Homework' }))).toBe('none');
    expect(replacedTotalsReach(before, after({ dates: { ...dates, grade_released_date: '2026-12-01T00:00:00.000Z' } }))).toBe('none');
  });
});

describe('a line item’s maximum', () => {
  it('is set before a score out of other points is posted, and when the tool does not know it', () => {
    expect(lineItemMaximumStale(10, 12)).toBe(true);
    expect(lineItemMaximumStale(undefined, 12)).toBe(true);
    expect(lineItemMaximumStale(12, 12)).toBe(false);
  });
});

describe('one message per change', () => {
  // Only the entries' table name is read: nothing is written.
  beforeAll(() => vi.stubEnv('WEBHOOK_OUTBOX_TABLE', 'outbox'));
  const course = { term: 'f26', course: 'cs1', ltiScoreLinks: 1 };
  const entryOf = (items: ReturnType<typeof ltiScoreOutbox>) => {
    const item = items[0]?.Put?.Item as { messageId: string; body: string };
    return {
      messageId: item.messageId,
      message: JSON.parse(item.body) as Extract<LtiScoreMessage, { kind: 'grade' | 'totals' | 'late-days' }>,
    };
  };

  it('gives two changes of one grade in the same millisecond two entries, each naming its change', () => {
    const grade = { gradeableId: 'hw1', ownerId: 'amy', gradedAt: new Date('2026-11-29T11:00:00.123Z') };
    const first = entryOf(ltiScoreOutbox(course, grade));
    const second = entryOf(ltiScoreOutbox(course, grade));
    expect(first.messageId).not.toBe(second.messageId);
    expect(first.message.changeId).not.toBe(second.message.changeId);
    expect(first.message).toMatchObject({ kind: 'grade', gradedAt: '2026-11-29T11:00:00.123Z', ownerId: 'amy' });
    // The id is the message's own: the same message relayed again is the same entry.
    expect(ltiMessageId(first.message)).toBe(first.messageId);
    const late = entryOf(ltiLateDaysOutbox(course, { userId: 'amy', changedAt: grade.gradedAt }));
    const again = entryOf(ltiLateDaysOutbox(course, { userId: 'amy', changedAt: grade.gradedAt }));
    expect(late.messageId).not.toBe(again.messageId);
    expect(ltiMessageId(late.message)).toBe(late.messageId);
    expect(late.message).toMatchObject({ kind: 'totals', cause: 'late-days', userId: 'amy' });
  });

  it('keeps the id of a late-days message written before totals had other causes', () => {
    const old = {
      kind: 'late-days',
      term: 'f26',
      course: 'cs1',
      userId: 'amy',
      changedAt: '2026-11-29T11:00:00.123Z',
      changeId: 'c',
    } as const;
    expect(ltiMessageId(old)).toBe('lti#["late-days","f26","cs1","amy","2026-11-29T11:00:00.123Z","c"]');
  });

  it('checks again the totals of the gradeable whose points a replacement changes, or of the course when it moves late days', () => {
    const hw = doc({ rubric: [{ max_value: 5 }] });
    const at = new Date('2026-11-29T11:00:00.123Z');
    const own = entryOf(ltiGradeableFollowUp(course, hw, doc({ rubric: [{ max_value: 8 }] }), at));
    expect(own.message).toMatchObject({ kind: 'totals', cause: 'gradeable', gradeableId: 'hw1', changedAt: at.toISOString() });
    expect(ltiMessageId(own.message)).toBe(own.messageId);
    const all = entryOf(ltiGradeableFollowUp(course, hw, { ...hw, dates: { ...hw.dates, late_days: 2 } }, at));
    expect(all.message).toMatchObject({ kind: 'totals', cause: 'gradeable' });
    expect(all.message).not.toHaveProperty('gradeableId');
    expect(ltiGradeableFollowUp(course, hw, { ...hw, title: 'Homework 1' }, at)).toEqual([]);
    expect(ltiGradeableFollowUp({ ...course, ltiScoreLinks: 0 }, hw, doc({ rubric: [] }), at)).toEqual([]);
  });

  it('checks again nothing for a time zone change, which moves no total', () => {
    expect(entryOf(ltiSettingFollowUp('default_student_late_days', course, new Date())).message).toMatchObject({ kind: 'totals' });
    expect(ltiSettingFollowUp('timezone', course, new Date())).toEqual([]);
  });

  it('writes none while no linked LMS course takes scores', () => {
    const grade = { gradeableId: 'hw1', ownerId: 'amy', gradedAt: new Date() };
    expect(ltiScoreOutbox({ ...course, ltiScoreLinks: 0 }, grade)).toEqual([]);
    expect(ltiLateDaysOutbox(undefined, { changedAt: new Date() })).toEqual([]);
  });

  it('sends a newer grade or another change of the same millisecond, never an older grade or a copy', () => {
    const at = '2026-11-29T11:00:00.123Z';
    const seen = { gradedAt: at, changeIds: ['a'] };
    expect(gradeStanding(undefined, { gradedAt: at, changeId: 'a' })).toBe('newer');
    expect(gradeStanding(seen, { gradedAt: '2026-11-29T11:00:00.124Z', changeId: 'c' })).toBe('newer');
    expect(gradeStanding(seen, { gradedAt: '2026-11-29T11:00:00.122Z', changeId: 'c' })).toBe('older');
    expect(gradeStanding(seen, { gradedAt: at, changeId: 'a' })).toBe('same');
    expect(gradeStanding(seen, { gradedAt: at, changeId: 'b' })).toBe('newer');
    // A delivery and a message from before change ids: the same grade.
    expect(gradeStanding({ gradedAt: at, changeIds: [] }, { gradedAt: at })).toBe('same');
    expect(gradeStanding({ gradedAt: at, changeIds: [] }, { gradedAt: at, changeId: 'b' })).toBe('newer');
  });

  it('remembers the changes of the grade’s millisecond, the latest few', () => {
    const at = '2026-11-29T11:00:00.123Z';
    expect(changeIdsWith({ gradedAt: at, changeIds: ['a'] }, { gradedAt: at, changeId: 'b' })).toEqual(['a', 'b']);
    expect(changeIdsWith({ gradedAt: at, changeIds: ['a'] }, { gradedAt: '2026-11-29T11:00:01.000Z', changeId: 'b' })).toEqual(['b']);
    expect(changeIdsWith(undefined, { gradedAt: at })).toEqual(['']);
    const many = Array.from({ length: 16 }, (_, index) => `c${index}`);
    expect(changeIdsWith({ gradedAt: at, changeIds: many }, { gradedAt: at, changeId: 'z' })).toEqual([...many.slice(1), 'z']);
  });
});
