/**
 * A submission's first step: every refusal that costs nothing, in the reference's order, and the
 * reads they need (the target's enrollment, their team, their extension, the team's members, the
 * submission and the queue). What is admitted is what the plan and the commit are built from.
 */
import { createHash } from 'node:crypto';
import type { Caller } from '#shared/auth/caller.ts';
import { courseGroups, isActiveMember, type Course, type Enrollment } from '#shared/courses/course.ts';
import { notOnTeam, teamChangedMeanwhile, userNotInCourse } from '#shared/courses/failures.ts';
import { enrollmentRef } from '#shared/data/enrollments.ts';
import { idempotencyRef, type StoredAnswer } from '#shared/data/idempotency.ts';
import { getItems } from '#shared/data/items.ts';
import { countersRef, courseBurst, loadRef, type QueueCounters } from '#shared/data/jobs.ts';
import { lateDaysRef } from '#shared/data/late-days.ts';
import { submissionRef } from '#shared/data/submissions.ts';
import { teamMembers, teamMembershipRef, type TeamMembership } from '#shared/data/teams.ts';
import { courseBurstPerMinute, maxQueuedJobsPerStudent, submissionLimits } from '#shared/config.ts';
import { invalidInput } from '#shared/errors.ts';
import { invalidGradeableId } from '#shared/gradeables/failures.ts';
import type { GradeableDocument } from '#shared/gradeables/gradeable.ts';
import type { RepositoryOwner } from '#shared/gradeables/repository.ts';
import { isValidUserId } from '#shared/ids.ts';
import { queueShare, type QueueShare } from '#shared/queue/shares.ts';
import { courseShards } from '#shared/queue/tickets.ts';
import { versionSizeRefusal } from './limits.ts';
import {
  closedCourseRefusal,
  idempotencyKeyRefusal,
  isOpenTo,
  kindRefusal,
  queueRefusal,
  refuse,
  submitterRefusal,
  type QueueLimits,
  type VersionKind,
} from './submit-refusals.ts';
import { daysLate, lateRefusal, type Submission } from './submission.ts';

export interface SubmitContext {
  readonly caller: Caller;
  readonly enrollment: Enrollment;
  readonly course: Course;
  readonly gradeableId: string;
  readonly gradeable: GradeableDocument | undefined;
  readonly fields: SubmitFields;
  readonly idempotencyKey: string | undefined;
  /** Read with the token check (see submitReads): the caller's own submission and the course's queue counters of the minute (courseShards). */
  readonly loaded?: SubmissionRead;
}

/** What a student sends: `vcs_checkout` read as a loose boolean, `git_repo_id` as sent. */
export interface SubmitFields {
  readonly userId?: string;
  readonly vcsCheckout?: boolean;
  readonly gitRepoId?: unknown;
}

/**
 * What each try of a submission reads: the owner's submission, the course's two queue counters of
 * the minute (its count of first-lane submissions, and where its ticket goes: reservation.ts), the
 * first answer under its Idempotency-Key, the student's count. Never the whole queue.
 */
export interface SubmissionRead {
  readonly submission?: Submission | undefined;
  readonly queue: QueueCounters;
  readonly previous?: StoredAnswer | undefined;
  readonly load?: number | undefined;
}

/** What kind of version is submitted, and what its Idempotency-Key's fingerprint covers beside the course, gradeable and target. */
export interface VersionRequest {
  readonly kind: VersionKind;
  readonly identity: Readonly<Record<string, unknown>>;
  /** What only one version may ever use (uploads): how many, for the transaction's size. */
  readonly claims: number;
}

/** A submission past every refusal that costs nothing. */
export interface Admitted {
  readonly callerId: string;
  readonly course: Course;
  readonly gradeable: GradeableDocument;
  /** The gradeable id as sent (refusals name it). */
  readonly gradeableId: string;
  /** Whose version it is: the caller, or the student staff submit for. */
  readonly target: string;
  /** The submission's owner: the target, or their team. */
  readonly owner: RepositoryOwner;
  /** The team's members, each of whose entries carries a copy of the team's active version. */
  readonly members?: readonly string[] | undefined;
  readonly daysLate: number;
  readonly idempotency?: { readonly key: string; readonly fingerprint: string } | undefined;
  /** A student's own submission counts towards their jobs queued or being graded; staff's for a student does not. */
  readonly counted: boolean;
  readonly claims: number;
}

/** Refuses what costs nothing to refuse, in the reference's order (docs/reference-compatibility.md). */
export async function admit(context: SubmitContext, request: VersionRequest, now: Date): Promise<Admitted> {
  const { caller, enrollment, course, gradeable, fields } = context;
  const target = fields.userId ?? caller.userId;
  const staff = enrollment.group <= courseGroups.fullAccessGrader;
  refuse(closedCourseRefusal(course));
  refuse(submitterRefusal(caller.userId, target, staff));
  if (!isOpenTo(gradeable, staff, now)) throw invalidGradeableId({ gradeable_id: context.gradeableId });
  refuse(kindRefusal(gradeable, request.kind));
  if (target !== caller.userId) await requireStudentOf(course, target);
  const membership = gradeable.team_gradeable ? await teamOf(course, gradeable.id, target) : undefined;
  const late = daysLate(now, gradeable.dates.submission_due_date);
  await refuseLate(context, target, late);
  refuse(idempotencyKeyRefusal(context.idempotencyKey));
  const owner = { term: course.term, course: course.course, gradeableId: gradeable.id, ownerId: membership?.teamId ?? target };
  const members = membership && (await teamMembers(owner, membership));
  // A version, its team's copies and its claims in one transaction: refused before anything is stored when they would not fit.
  refuse(versionSizeRefusal(members?.length, request.claims));
  const idempotency = context.idempotencyKey
    ? {
        key: `${caller.userId}#${context.idempotencyKey}`,
        fingerprint: fingerprint(course, context.gradeableId, target, request.identity),
      }
    : undefined;
  return {
    callerId: caller.userId,
    course,
    gradeable,
    gradeableId: context.gradeableId,
    target,
    owner,
    members,
    daysLate: late,
    idempotency,
    counted: target === caller.userId,
    claims: request.claims,
  };
}

/**
 * Too late, unless the student's extension on the gradeable covers it: their late days are read
 * only then (a submission past its late days is rare; every other one reads one item less).
 */
async function refuseLate(context: SubmitContext, target: string, late: number): Promise<void> {
  const { gradeable, course } = context;
  if (!gradeable || !lateRefusal(late, gradeable.dates)) return;
  const { lateDays } = await getItems({ lateDays: lateDaysRef(course.term, course.course, target) });
  const refusal = lateRefusal(late, gradeable.dates, lateDays?.extensions[gradeable.id]?.days ?? 0);
  if (refusal) throw invalidInput(refusal);
}

/** Reads what a try of the submission decides from. */
export function readForSubmission({ owner, idempotency, counted, callerId }: Admitted, now = new Date()): Promise<SubmissionRead> {
  return getItems({
    submission: submissionRef(owner.term, owner.course, owner.gradeableId, owner.ownerId),
    queue: countersRef(courseShards(owner.term, owner.course, now)),
    ...(idempotency ? { previous: idempotencyRef(idempotency.key) } : {}),
    ...(counted ? { load: loadRef(callerId) } : {}),
  });
}

/** The first try's items: the caller's own, read with the token check, or read now. */
export async function firstRead(admitted: Admitted, context: SubmitContext, now: Date): Promise<SubmissionRead> {
  return (admitted.owner.ownerId === admitted.callerId ? context.loaded : undefined) ?? (await readForSubmission(admitted, now));
}

/**
 * Refuses a submission over its limits as first read, before what its version is made of is
 * fetched or stored; true when it was answered before under its Idempotency-Key (nothing to
 * fetch or store: its first answer is answered again).
 */
export function answeredOrRefused(admitted: Admitted, first: SubmissionRead, now: Date): boolean {
  if (admitted.idempotency !== undefined && first.previous !== undefined) return true;
  refuse(queueRefusal(first.submission?.versions ?? [], shareOf(admitted, first, new Set()), now, queueLimits()));
  return false;
}

/** The submission's share of the queue as read; `keep`: queued versions found not to be supersedable. */
export const shareOf = (admitted: Admitted, read: SubmissionRead, keep: ReadonlySet<number>, burst?: CourseBurst): QueueShare =>
  queueShare(
    read.submission?.versions ?? [],
    admitted.counted ? { userId: admitted.callerId, inFlight: read.load ?? 0 } : undefined,
    keep,
    burst,
  );

export interface CourseBurst {
  readonly count: number;
  readonly limit: number;
}

/**
 * The course's first-lane submissions this minute, as first read from the course's counters of
 * the minute, this one included (a student's own only: staff's go first whatever the rush);
 * counted by the reservation of its ticket, so a refused submission counts nothing.
 */
export const burstOf = (admitted: Admitted, first: SubmissionRead, now: Date): CourseBurst | undefined =>
  admitted.counted
    ? { count: courseBurst(first.queue, admitted.owner.term, admitted.owner.course, now) + 1, limit: courseBurstPerMinute() }
    : undefined;

export const queueLimits = (): QueueLimits => ({ submissions: submissionLimits(), maxQueued: maxQueuedJobsPerStudent() });

/** The members of the team read again, provided the target is still on it (otherwise the submission is refused: submit again). */
export async function membersNow({ course, gradeable, target, owner }: Admitted): Promise<readonly string[]> {
  const membership = await teamOf(course, gradeable.id, target);
  if (membership.teamId !== owner.ownerId) throw teamChangedMeanwhile();
  return teamMembers({ term: course.term, course: course.course, gradeableId: gradeable.id }, membership);
}

/** On team gradeables a submission belongs to the submitter's team. */
async function teamOf(course: Course, gradeableId: string, userId: string): Promise<TeamMembership> {
  const { membership } = await getItems({ membership: teamMembershipRef(course.term, course.course, gradeableId, userId) });
  if (!membership) throw notOnTeam({ user_id: userId });
  return membership;
}

async function requireStudentOf(course: Course, userId: string): Promise<void> {
  // A malformed id (empty, too long) is in no course; it must not reach DynamoDB as a key.
  if (!isValidUserId(userId)) throw userNotInCourse({ user_id: userId });
  const { member } = await getItems({ member: enrollmentRef(course.term, course.course, userId) });
  if (!member || !isActiveMember(member)) throw userNotInCourse({ user_id: userId });
}

function fingerprint(course: Course, gradeableId: string, target: string, kind: Readonly<Record<string, unknown>>): string {
  const identity = { course: `${course.term}/${course.course}`, gradeableId, target, ...kind };
  return createHash('sha256').update(JSON.stringify(identity)).digest('base64url');
}
