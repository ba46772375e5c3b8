/**
 * Where a student stands on a gradeable, beside the reference's `values`: the active version's
 * lateness and the late days left (as the late-day table says them), and, while it is queued, an
 * estimate of its wait. Also what a submission answers when asked for its representation
 * (`Prefer: return=representation`).
 */
import type { Course, Enrollment } from '#shared/courses/course.ts';
import { enrollmentRef } from '#shared/data/enrollments.ts';
import { jobTimesRef, type JobTime } from '#shared/data/job-times.ts';
import { queueRef, type QueueCounters } from '#shared/data/jobs.ts';
import { getItems } from '#shared/data/items.ts';
import { lateDaysRef, type StudentLateDays } from '#shared/data/late-days.ts';
import { submissionRef, type Submission, type VersionSummary } from '#shared/data/submissions.ts';
import type { GradeableDocument } from '#shared/gradeables/gradeable.ts';
import { queuePosition } from '#shared/queue/tickets.ts';
import { activeDaysLate } from './late-days.ts';
import { lateStanding, studentWork, type StudentWork } from './late-day-table.ts';
import { queueEtaSeconds } from './queue-estimate.ts';
import type { SubmitAnswer } from './submit-commit.ts';

/** Read with the token check beside `values`' own items: the student's late-day item and the recent jobs' times. */
export const standingReads = (course: { term: string; course: string }, userId: string) => ({
  lateDays: lateDaysRef(course.term, course.course, userId),
  jobTimes: jobTimesRef(),
});

/** Read alongside the token check: the course's Electronic File gradeables and the student's active days late on each. */
export const standingWork = (course: { term: string; course: string }, userId: string): Promise<StudentWork> => studentWork(course, userId);

export interface StandingInput {
  readonly course: Course;
  /** The student's enrollment (none, or staff: no late-day budget). */
  readonly student: Enrollment | undefined;
  readonly lateDays: StudentLateDays | undefined;
  readonly work: StudentWork;
  readonly gradeable: GradeableDocument;
  /** None when no job ended since the item was first written. */
  readonly jobTimes: readonly JobTime[] | undefined;
  readonly now: Date;
}

/** The standing fields of `values` for the submission shown, whose active version is at `position` in the queue. */
export function activeStanding(input: StandingInput & { submission: Submission | undefined; position: number }) {
  return {
    ...lateStanding({ ...input, activeDaysLate: activeDaysLate(input.submission) }),
    queue_eta_seconds: queueEtaSeconds(input.position, input.jobTimes, input.now),
  };
}

/** A version's place in the queue as `values` gives it: 1-based while queued, 0 while graded, -1 otherwise. */
export const versionPosition = (version: VersionSummary | undefined, queue: QueueCounters): number =>
  version?.state === 'queued' ? queuePosition(version.ticket, queue) : version?.state === 'grading' ? 0 : -1;

/**
 * A submission's answer as its representation: the version, its lateness and charge (as if it is
 * the active version, which it is unless another was chosen or submitted since), the late days
 * left, and its place and estimated wait in the queue, read now (one round trip for the items,
 * one for the student's gradeables, at once).
 */
export async function submissionRepresentation(answer: SubmitAnswer, course: Course, now = new Date()) {
  const { owner, target, gradeable } = answer;
  const [items, work] = await Promise.all([
    getItems({
      submission: submissionRef(owner.term, owner.course, owner.gradeableId, owner.ownerId),
      queue: queueRef(),
      student: enrollmentRef(owner.term, owner.course, target),
      ...standingReads(owner, target),
    }),
    standingWork(owner, target),
  ]);
  const number = answer.version ?? items.submission?.activeVersion ?? 0;
  const version = items.submission?.versions.find((candidate) => candidate.version === number);
  const position = versionPosition(version, items.queue);
  const standing = lateStanding({ ...items, course, work, gradeable, activeDaysLate: version?.daysLate, now });
  return {
    version: number,
    message: answer.message,
    days_late: standing.days_late,
    late_days_charged: standing.late_days_charged,
    late_days_remaining: standing.late_days_remaining,
    queue_position: position,
    queue_eta_seconds: queueEtaSeconds(position, items.jobTimes, now),
  };
}
