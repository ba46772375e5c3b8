/**
 * A submission's refusals, as pure functions of what was sent and what was read, in the order the
 * reference checks them (docs/reference-compatibility.md): each is undefined when the rule holds.
 */
import { takesSubmissions, type Course } from '#shared/courses/course.ts';
import { courseArchived } from '#shared/courses/failures.ts';
import type { Refusal } from '#shared/errors.ts';
import { onlyFileGradeables } from '#shared/files/failures.ts';
import type { GradeableDocument } from '#shared/gradeables/gradeable.ts';
import { isValidIdempotencyKey } from '#shared/ids.ts';
import { loadAfter, type QueueShare } from '#shared/queue/shares.ts';
import { badIdempotencyKey, idempotencyKeyReused, notSameUser, onlyVcs } from './failures.ts';
import { queuedJobsRefusal, submissionRefusal, type SubmissionLimits } from './limits.ts';
import type { VersionSummary } from './submission.ts';

/** Throws the refusal, if any. */
export const refuse = (refusal: Refusal | undefined): void => {
  if (refusal) throw refusal;
};

/** An archived course takes no version and no upload, from anyone, unless its settings allow them. */
export const closedCourseRefusal = (course: Pick<Course, 'archived' | 'archivedAcceptsSubmissions'>): Refusal | undefined =>
  takesSubmissions(course) ? undefined : courseArchived();

/** A student submits only for themselves; staff (full-access graders and above) for anyone. */
export const submitterRefusal = (callerId: string, target: string, staff: boolean): Refusal | undefined =>
  target !== callerId && !staff ? notSameUser() : undefined;

/** Whether the gradeable is there and open to the submitter: staff submit before it opens. */
export const isOpenTo = (gradeable: GradeableDocument | undefined, staff: boolean, now: Date): gradeable is GradeableDocument =>
  gradeable !== undefined && (staff || (gradeable.dates.submission_open_date ?? '') <= now.toISOString());

/** What a version is made of: a commit of a repository, or files. */
export type VersionKind = 'vcs' | 'files';

/** A gradeable this kind of version is not for. */
export function kindRefusal(gradeable: GradeableDocument, kind: VersionKind): Refusal | undefined {
  if (kind === 'vcs') return gradeable.type !== 'Electronic File' || !gradeable.vcs ? onlyVcs() : undefined;
  return gradeable.type !== 'Electronic File' || gradeable.vcs ? onlyFileGradeables() : undefined;
}

export const idempotencyKeyRefusal = (key: string | undefined): Refusal | undefined =>
  key !== undefined && !isValidIdempotencyKey(key) ? badIdempotencyKey() : undefined;

/** A request answered before under its Idempotency-Key is answered again only if it is the same request. */
export const repeatRefusal = (previous: { fingerprint: string }, fingerprint: string): Refusal | undefined =>
  previous.fingerprint !== fingerprint ? idempotencyKeyReused() : undefined;

export interface QueueLimits {
  readonly submissions: SubmissionLimits;
  /** MAX_QUEUED_JOBS_PER_STUDENT. */
  readonly maxQueued: number;
}

/** A version over the submission limits, or a job over the student's jobs queued or being graded once its share is queued. */
export const queueRefusal = (versions: readonly VersionSummary[], share: QueueShare, now: Date, limits: QueueLimits): Refusal | undefined =>
  submissionRefusal(versions, now, limits.submissions) ?? queuedJobsRefusal(loadAfter(share), limits.maxQueued);
