/**
 * Grade passback (LTI Assignment and Grade Services 2.0): the rules of what is sent to a linked LMS
 * course for one student and gradeable, and what becomes of each answer. Pure functions; the
 * delivery itself is shared/passback/.
 */
import type { LtiContextLink } from '#shared/data/lti.ts';
import type { ScoreDelivery, SentScore } from '#shared/data/lti-scores.ts';
import type { Submission } from '#shared/data/submissions.ts';
import type { GradeableDocument } from '#shared/gradeables/gradeable.ts';

export const SCORE_SCOPE = 'https://purl.imsglobal.org/spec/lti-ags/scope/score';
export const LINE_ITEM_SCOPE = 'https://purl.imsglobal.org/spec/lti-ags/scope/lineitem';
export const SCORE_MEDIA_TYPE = 'application/vnd.ims.lis.v1.score+json';
export const LINE_ITEM_MEDIA_TYPE = 'application/vnd.ims.lis.v2.lineitem+json';
export const LINE_ITEMS_MEDIA_TYPE = 'application/vnd.ims.lis.v2.lineitemcontainer+json';

/** Whether a linked LMS course takes scores: its grade service grants the `score` scope and names its line items. */
export const takesScores = (link: Pick<LtiContextLink, 'grades'>): boolean =>
  link.grades !== null && link.grades.lineitems !== null && link.grades.scope.includes(SCORE_SCOPE);

/** A student's grade of a gradeable, as the gradebook shows it. */
export interface GradeShown {
  /** The total the gradebook shows. */
  readonly total: number;
  /** The gradeable's points (the gradebook's maximum). */
  readonly maximum: number;
  /** Whether a version is still queued or being graded. */
  readonly queued: boolean;
  /** Whether the rubric still has components to grade. */
  readonly taPending: boolean;
  /** Whether the active version's autograding failed (its grading state `failed`; queued again, it is `queued`). */
  readonly failed: boolean;
}

/**
 * The score sent for a grade: the total out of the gradeable's points, `timestamp` the grade's own
 * time (a platform keeps the newer of two, so a late retry never overwrites a newer grade).
 */
export function scoreOf(grade: GradeShown, userId: string, gradedAt: string): SentScore {
  if (grade.failed) {
    // AGS 2.0: `Failed` says the grading could not complete, and a score without `scoreGiven`
    // (nor `scoreMaximum`, which goes with it) says there is presently no score, so the platform
    // is to clear the one it held: an earlier version's score, or a total without this version's
    // autograded points, would pass for its grade. `Completed`: the student's part is done; it is
    // the grading that failed, and the next version graded (or a regrade) sends its score later.
    return { userId, activityProgress: 'Completed', gradingProgress: 'Failed', timestamp: gradedAt };
  }
  return {
    userId,
    scoreGiven: grade.total,
    scoreMaximum: grade.maximum,
    activityProgress: grade.queued ? 'Submitted' : 'Completed',
    gradingProgress: grade.taPending ? 'PendingManual' : grade.queued ? 'Pending' : 'FullyGraded',
    timestamp: gradedAt,
  };
}

/**
 * Whether a change of totals (late days of `scope.userId`, or of every student without it; a
 * gradeable's points, of `scope.gradeableId` alone) may have changed what a delivery sent: a score
 * the LMS took (the delivery sent, or a newer grade of it on its way), in scope, to a linked LMS
 * course that still takes scores (`linked`: its links' `registrationId contextId`). A grade the
 * LMS refused or never got waits for a replay, the student's next grade or a publish: a change of
 * totals does not send it. Pure.
 */
export function totalsTouch(
  scope: { readonly userId?: string | undefined; readonly gradeableId?: string | undefined },
  delivery: Pick<ScoreDelivery, 'gradeableId' | 'userId' | 'registrationId' | 'contextId' | 'lastSent' | 'state'>,
  linked: ReadonlySet<string>,
): boolean {
  if (scope.userId !== undefined && delivery.userId !== scope.userId) return false;
  if (scope.gradeableId !== undefined && delivery.gradeableId !== scope.gradeableId) return false;
  if (delivery.lastSent === null || (delivery.state !== 'sent' && delivery.state !== 'pending')) return false;
  return linked.has(`${delivery.registrationId} ${delivery.contextId}`);
}

/** The fields of a gradeable the gradebook's totals and maximum read, as replacedTotalsReach sorts them. */
type TotalsFields = Pick<GradeableDocument, 'type' | 'ta_grading' | 'rubric' | 'autograding' | 'dates'>;

/**
 * Which totals a gradeable's replacement may change: `course`, when it moves the late days charged
 * (its type, due date or late days allowed: a student's late days run across every gradeable, so
 * another gradeable's late penalty may change); `gradeable`, when it changes its own points or how
 * they are given (rubric, test cases, TA grading); `none` otherwise (its title, say). Pure.
 */
export function replacedTotalsReach(before: TotalsFields, after: TotalsFields): 'none' | 'gradeable' | 'course' {
  const lateDays = (document: TotalsFields) =>
    JSON.stringify([
      document.type,
      document.dates.has_due_date === false ? null : (document.dates.submission_due_date ?? null),
      document.dates.late_days ?? 0,
    ]);
  if (lateDays(before) !== lateDays(after)) return 'course';
  const points = (document: TotalsFields) =>
    JSON.stringify([document.ta_grading === true, document.rubric, document.autograding?.test_cases ?? []]);
  return points(before) === points(after) ? 'none' : 'gradeable';
}

/**
 * Whether a line item's `scoreMaximum` (as the tool last created, found or set it; undefined: not
 * known) must be set to the gradeable's points before a score out of them is posted: an LMS shows
 * a score against its column's maximum, so a score of 10 out of 12 posted to a column of 10 would
 * read as 8.3 of 10. Pure.
 */
export const lineItemMaximumStale = (recorded: number | undefined, scoreMaximum: number): boolean => recorded !== scoreMaximum;

/** Whether the score shown now differs from the one last sent, in anything but its time. Pure. */
export const scoreDiffers = (lastSent: SentScore, now: Omit<SentScore, 'timestamp'>): boolean =>
  lastSent.userId !== now.userId ||
  lastSent.scoreGiven !== now.scoreGiven ||
  lastSent.scoreMaximum !== now.scoreMaximum ||
  lastSent.activityProgress !== now.activityProgress ||
  lastSent.gradingProgress !== now.gradingProgress;

/**
 * How a grade message (its grade's time and change id) stands to what a delivery carries: `newer`,
 * to send; `same`, a copy of a message already acted on (the change is among the delivery's at its
 * time); `older`, superseded. Two changes in one millisecond are both sent: the second's total is
 * computed after it was written. Pure.
 */
export function gradeStanding(
  seen: Pick<ScoreDelivery, 'gradedAt' | 'changeIds'> | undefined,
  message: { readonly gradedAt: string; readonly changeId?: string | undefined },
): 'newer' | 'same' | 'older' {
  if (!seen || seen.gradedAt < message.gradedAt) return 'newer';
  if (seen.gradedAt > message.gradedAt) return 'older';
  const id = message.changeId ?? '';
  return seen.changeIds.includes(id) || (seen.changeIds.length === 0 && id === '') ? 'same' : 'newer';
}

/** The delivery's change ids once it carries a message's change: those at the same time, and this one (the latest few). Pure. */
export function changeIdsWith(
  seen: Pick<ScoreDelivery, 'gradedAt' | 'changeIds'> | undefined,
  message: { readonly gradedAt: string; readonly changeId?: string | undefined },
): string[] {
  const kept = seen && seen.gradedAt === message.gradedAt ? seen.changeIds : [];
  return [...kept, message.changeId ?? ''].slice(-MAX_CHANGE_IDS);
}

/** A delivery remembers this many changes of its grade's millisecond (more in one millisecond is not expected). */
const MAX_CHANGE_IDS = 16;

/** `<lineitem>/scores`, the segment added to the path and any query kept (a Moodle line item URL has one). */
export function scoresUrl(lineItem: string): URL {
  const url = new URL(lineItem);
  url.pathname = `${url.pathname.replace(/\/$/, '')}/scores`;
  return url;
}

/** What a platform's answer (or its absence: `status` null) means for a delivery. */
export type AnswerMeaning =
  { readonly kind: 'sent' } | { readonly kind: 'retry'; readonly afterSeconds?: number } | { readonly kind: 'failed' };

/** Whether the platform took a request: any 2xx answer (null: none came). */
export const platformTook = (status: number | null): boolean => status !== null && status >= 200 && status < 300;

/**
 * 2xx: sent. 429, 5xx, Canvas's 403 "Rate Limit Exceeded" and no answer at all: tried again,
 * after the platform's Retry-After (in seconds) when it gives one. Any other answer (a 4xx for this student:
 * not a student there, the course unpublished): failed, not retried.
 */
export function answerMeaning(status: number | null, body: string, retryAfterSeconds: number | undefined): AnswerMeaning {
  if (platformTook(status)) return { kind: 'sent' };
  const rateLimited = status === 403 && /rate limit exceeded/i.test(body);
  if (status === null || status === 429 || status >= 500 || rateLimited) {
    return retryAfterSeconds === undefined ? { kind: 'retry' } : { kind: 'retry', afterSeconds: retryAfterSeconds };
  }
  return { kind: 'failed' };
}

/**
 * After a try to retry, the wait before the next, or undefined when the round's retries are spent:
 * the schedule's delay for this try, or the platform's Retry-After when longer.
 */
export function retryDelaySeconds(
  attemptInRound: number,
  schedule: readonly number[],
  afterSeconds: number | undefined,
): number | undefined {
  const delay = schedule[attemptInRound - 1];
  if (delay === undefined) return undefined;
  return Math.max(delay, afterSeconds ?? 0);
}

/** The platform's message in a refusal, cut to what a delivery keeps. */
export const platformMessage = (status: number | null, body: string): string =>
  `${status === null ? 'no answer' : `HTTP ${status}`}${body.trim() ? `: ${body.trim().slice(0, 300)}` : ''}`;

/** The states a delivery is listed by (`GET …/lti/scores?state=`). */
export const SCORE_DELIVERY_STATES = ['sent', 'failed', 'skipped', 'pending'] as const;

/** Deliveries per page when the request names no size. */
export const SCORE_DELIVERIES_PAGE = 100;

/**
 * How long past its due time a pending delivery's try may be before the delivery counts as stuck
 * (its message lost, in the dead-letter queue): the queue's retries of a try take minutes.
 */
export const STUCK_AFTER_MS = 60 * 60 * 1000;

/**
 * Why a delivery cannot be replayed now, or undefined: a pending one is being sent (its next try is
 * queued), so a replay would only race it, unless its try is an hour overdue (stuck).
 */
export function replayRefusal(delivery: Pick<ScoreDelivery, 'state' | 'nextAttemptAt' | 'updatedAt'>, now: Date): 'pending' | undefined {
  if (delivery.state !== 'pending') return undefined;
  const due = Date.parse(delivery.nextAttemptAt ?? delivery.updatedAt);
  return now.getTime() - due > STUCK_AFTER_MS ? undefined : 'pending';
}

/** A delivery replayed: pending again, in a new round of tries (its retries counted afresh), its next try queued now. */
export const replayedDelivery = (delivery: ScoreDelivery, now: Date): ScoreDelivery => ({
  ...delivery,
  state: 'pending',
  reason: null,
  roundStart: delivery.attempts.length,
  nextAttemptAt: null,
  updatedAt: now.toISOString(),
});

/** Whether a submission holds a grade to publish: an active version (graded or on its way) or a TA's grade of some component. */
export const hasGradeToPublish = (submission: Pick<Submission, 'activeVersion' | 'taGrade'>): boolean =>
  submission.activeVersion > 0 || Object.keys(submission.taGrade?.components ?? {}).length > 0;
