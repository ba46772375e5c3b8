/**
 * Regrades: an instructor queues again one version, one student's active version, or
 * every active version of a gradeable, after fixing its test cases, as the reference's regrade
 * does (docs/reference-compatibility.md: `user_id`, `version_to_regrade`, queue
 * entries marked `regrade` with `regrade_by`). Versions get new tickets at the tail of the queue's
 * regrade lane, behind every submission (the reference's regrade queue has a lower priority too), so
 * queue positions stay exact; their old results stay visible until the new ones replace them, in
 * the transaction that ends each job (shared/grading/worker/record.ts).
 */
import { randomBytes } from 'node:crypto';
import { isActiveMember, type Course, type Enrollment } from '#shared/courses/course.ts';
import { enrollmentRef } from '#shared/data/enrollments.ts';
import { getItems } from '#shared/data/items.ts';
import { regradeRef, type RegradeRecord } from '#shared/data/regrades.ts';
import { submissionRef, submissionsOfGradeable, type Submission, type VersionState } from '#shared/data/submissions.ts';
import { teamMembershipRef } from '#shared/data/teams.ts';
import { invalidInput } from '#shared/errors.ts';
import { notOnTeam, userNotInCourse } from '#shared/courses/failures.ts';
import { invalidGradeableId, noSuchVersion } from '#shared/gradeables/failures.ts';
import type { GradeableDocument } from '#shared/gradeables/gradeable.ts';
import { gradeableRef } from '#shared/gradeables/stored.ts';
import { isRegradeId, isValidUserId } from '#shared/ids.ts';
import {
  noActiveVersionToRegrade,
  nothingToRegrade,
  regradeNotFound,
  regradeOnlyAutograded,
  regradeVersionNeedsUser,
  regradeVersionNotWhole,
} from './failures.ts';
import { REGRADE_CHUNK, RegradeCommit } from './regrade-commit.ts';
import type { RegradeTarget } from './regrade-plan.ts';

export { isRegradeId };
/** A new regrade id: `rg_` and 128 random bits (see REGRADE_ID in shared/ids.ts). */
export const newRegradeId = (): string => `rg_${randomBytes(16).toString('base64url')}`;

export { REGRADE_CHUNK };
export type { RegradeTarget };

/** The versions a request selects: those to queue again, and those skipped as queued or being graded already. */
export interface RegradeSelection {
  readonly requeue: RegradeTarget[];
  readonly skipped: RegradeTarget[];
}

/** What a request asks for: every owner's active version, one owner's active version, or one version. */
export type RegradeScope =
  | { readonly kind: 'all' }
  | { readonly kind: 'active'; readonly ownerId: string }
  | { readonly kind: 'version'; readonly ownerId: string; readonly version: number };

/**
 * `version_to_regrade` (a whole number, as the HTTP layer reads it): absent, or from 1, with
 * `user_id`. Pure, for the unit tests; a string is the refusal's message.
 */
export function requestedRegradeVersion(value: number | undefined, userId: string | undefined): number | undefined | string {
  if (value === undefined) return undefined;
  if (!Number.isInteger(value) || value < 1) return regradeVersionNotWhole.text();
  if (userId === undefined) return regradeVersionNeedsUser.text();
  return value;
}

const inFlight = (state: VersionState | undefined) => state === 'queued' || state === 'grading';

/**
 * The versions a scope selects among the submissions read, split into those to queue again and
 * those skipped because they are queued or being graded already. Every active version: owners with
 * a cancelled submission (no active version) are left out, as in the reference. One owner: a
 * string is the refusal's message (no submission, no active version, no such version). Pure.
 */
export function selectRegrade(submissions: readonly Submission[], scope: RegradeScope): RegradeSelection | string {
  const requeue: RegradeTarget[] = [];
  const skipped: RegradeTarget[] = [];
  const add = (submission: Submission, version: number) => {
    const summary = submission.versions[version - 1];
    const target = {
      ownerId: submission.ownerId,
      version,
      ...(summary?.commit ? { commit: summary.commit } : {}),
      ...(summary?.repository ? { repository: summary.repository } : {}),
    };
    (inFlight(summary?.state) ? skipped : requeue).push(target);
  };
  if (scope.kind === 'all') {
    for (const submission of submissions) {
      if (submission.activeVersion > 0 && submission.activeVersion <= submission.versions.length) add(submission, submission.activeVersion);
    }
    return { requeue, skipped };
  }
  const submission = submissions.find((candidate) => candidate.ownerId === scope.ownerId);
  const highest = Math.min(submission?.highestVersion ?? 0, submission?.versions.length ?? 0);
  if (!submission || highest === 0) return nothingToRegrade.text({ owner_id: scope.ownerId });
  if (scope.kind === 'active') {
    if (submission.activeVersion === 0) return noActiveVersionToRegrade.text({ owner_id: scope.ownerId });
    add(submission, submission.activeVersion);
  } else {
    if (scope.version > highest) return noSuchVersion.text({ version: scope.version, highest_version: highest });
    add(submission, scope.version);
  }
  return { requeue, skipped };
}

/**
 * The regrade job object: its counts and a state derived from them. `queued` until a re-queued
 * version ends, `running` while some have and others have not (or versions are still being
 * re-queued), `done` once every selected version was skipped or ended. Pure.
 */
export function regradeJob(record: RegradeRecord) {
  const ended = record.graded + record.failed;
  const placed = record.queued + record.skipped >= record.total;
  const state = placed && ended >= record.queued ? 'done' : ended === 0 ? 'queued' : 'running';
  return {
    regrade_id: record.regradeId,
    gradeable_id: record.gradeableId,
    state,
    total: record.total,
    queued: record.queued,
    graded: record.graded,
    failed: record.failed,
    skipped: record.skipped,
    regrade_by: record.requestedBy,
    created_at: record.createdAt,
    message: `${record.queued} ${record.queued === 1 ? 'submission' : 'submissions'} added to queue for regrading`,
  } as const;
}

export type RegradeJob = ReturnType<typeof regradeJob>;

/** A regrade as asked: who asks, of which gradeable, and what the token check read for it. */
export interface RegradeRequest {
  readonly caller: { readonly userId: string };
  readonly course: Course;
  readonly gradeableId: string;
  readonly gradeable: GradeableDocument | undefined;
  /** `user_id`: a student (on team gradeables, a member of the team); none: every active version. */
  readonly userId?: string | undefined;
  /** `version_to_regrade`: one version of that student's (or team's), read as a whole number by the HTTP layer. */
  readonly version?: number | undefined;
  /** What regradeReads read of `userId`'s with the token check (absent: read here). */
  readonly student?: StudentItems | undefined;
  /** Every submission of the gradeable, when read alongside the token check (see everySubmissionAsked). */
  readonly submissions?: Submission[] | undefined;
}

/** What a regrade asks for, once admitted: an autograded gradeable, and a student and version of theirs, or neither. */
interface AdmittedRegrade {
  readonly gradeable: GradeableDocument;
  readonly userId: string | undefined;
  readonly version: number | undefined;
}

/**
 * Queues again what the request selects (see RegradeScope), `REGRADE_CHUNK` versions per
 * transaction (regrade-commit.ts): the chunk takes tickets drawn in a row (shared/queue/tickets.ts),
 * each version gets a job and its new ticket, and the regrade item its counts, all or nothing.
 */
export async function requestRegrade(request: RegradeRequest, now = new Date()): Promise<RegradeJob> {
  const admitted = admitRegrade(request);
  const selected = await selectRequested(request, admitted);
  const record = newRegradeRecord(request, admitted.gradeable, selected, now);
  const written = await new RegradeCommit(record).run(selected.requeue);
  // As written: workers may have ended some jobs since, which the status route shows.
  return regradeJob(written);
}

/** The refusals a regrade gets before anything is read. */
function admitRegrade(request: RegradeRequest): AdmittedRegrade {
  const { gradeable } = request;
  if (!gradeable) throw invalidGradeableId({ gradeable_id: request.gradeableId });
  // Versions of files are graded from their stored files, as their first grading did (worker/prepare.ts).
  if (gradeable.type !== 'Electronic File') throw regradeOnlyAutograded({ type: gradeable.type });
  const userId = request.userId === '' ? undefined : request.userId;
  const version = requestedRegradeVersion(request.version, userId);
  if (typeof version === 'string') throw invalidInput(version);
  return { gradeable, userId, version };
}

/** The versions the request selects among those read (or refused: see selectRegrade). */
async function selectRequested(request: RegradeRequest, admitted: AdmittedRegrade): Promise<RegradeSelection> {
  const { course } = request;
  const { gradeable, userId, version } = admitted;
  if (userId === undefined) {
    const submissions = request.submissions ?? (await submissionsOfGradeable(course.term, course.course, gradeable.id));
    return selectedOrRefused(selectRegrade(submissions, { kind: 'all' }));
  }
  const submission = await submissionOfStudent(course, gradeable, userId, request.student);
  const ownerId = submission?.ownerId ?? userId;
  const scope: RegradeScope = version === undefined ? { kind: 'active', ownerId } : { kind: 'version', ownerId, version };
  return selectedOrRefused(selectRegrade(submission ? [submission] : [], scope));
}

const selectedOrRefused = (selected: RegradeSelection | string): RegradeSelection => {
  if (typeof selected === 'string') throw invalidInput(selected);
  return selected;
};

/** The regrade as created: every version selected, those skipped counted already. */
function newRegradeRecord(request: RegradeRequest, gradeable: GradeableDocument, selected: RegradeSelection, now: Date): RegradeRecord {
  return {
    regradeId: newRegradeId(),
    term: request.course.term,
    course: request.course.course,
    gradeableId: gradeable.id,
    total: selected.requeue.length + selected.skipped.length,
    queued: 0,
    skipped: selected.skipped.length,
    graded: 0,
    failed: 0,
    requestedBy: request.caller.userId,
    createdAt: now.toISOString(),
  };
}

/**
 * What a regrade reads with the token check: the gradeable, and for a
 * `user_id` as sent (a text field reaches the route's inputs unchanged; any other reads an item
 * nobody has) the student's enrollment, own submission and team membership.
 */
export function regradeReads({ term, course, gradeableId }: { term: string; course: string; gradeableId: string }, userId: unknown) {
  const student = typeof userId === 'string' && isValidUserId(userId) ? userId : '-';
  return {
    gradeable: gradeableRef(term, course, gradeableId),
    member: enrollmentRef(term, course, student),
    own: submissionRef(term, course, gradeableId, student),
    membership: teamMembershipRef(term, course, gradeableId, student),
  };
}

/** What regradeReads reads of the student named in the body. */
export interface StudentItems {
  readonly member?: Enrollment | undefined;
  readonly own?: Submission | undefined;
  readonly membership?: { readonly teamId: string } | undefined;
}

/** Read alongside the token check when the body names no student: every submission of the gradeable. */
export const everySubmissionAsked = (
  { term, course, gradeableId }: { term: string; course: string; gradeableId: string },
  userId: unknown,
): Promise<Submission[] | undefined> =>
  userId === undefined || userId === '' ? submissionsOfGradeable(term, course, gradeableId) : Promise.resolve(undefined);

/** What the status route reads with the token check: the regrade. */
export function regradeStatusReads(regradeId: string) {
  return { regrade: regradeRef(regradeId) };
}

/** A regrade of this course, with its progress now; another course's (or an unknown id) is not found. */
export async function regradeStatus(course: Course, regradeId: string, loaded?: { regrade?: RegradeRecord }): Promise<RegradeJob> {
  const missing = () => regradeNotFound({ regrade_id: regradeId });
  const stored = loaded ? loaded.regrade : (await getItems({ regrade: regradeRef(regradeId) })).regrade;
  if (!stored || stored.term !== course.term || stored.course !== course.course) throw missing();
  return regradeJob(stored);
}

/**
 * A student's submission: theirs, or on team gradeables their team's. The enrollment is read with
 * the student's own submission (or team membership) in one request: the token check's, or here.
 */
async function submissionOfStudent(
  course: Course,
  gradeable: GradeableDocument,
  userId: string,
  preloaded: StudentItems | undefined,
): Promise<Submission | undefined> {
  if (!isValidUserId(userId)) throw userNotInCourse({ user_id: userId });
  const { term, course: code } = course;
  const notMember = () => userNotInCourse({ user_id: userId });
  const member = enrollmentRef(term, code, userId);
  if (!gradeable.team_gradeable) {
    const loaded = preloaded ?? (await getItems({ member, own: submissionRef(term, code, gradeable.id, userId) }));
    if (!loaded.member || !isActiveMember(loaded.member)) throw notMember();
    return loaded.own;
  }
  const loaded = preloaded ?? (await getItems({ member, membership: teamMembershipRef(term, code, gradeable.id, userId) }));
  if (!loaded.member || !isActiveMember(loaded.member)) throw notMember();
  if (!loaded.membership) throw notOnTeam({ user_id: userId });
  const teamId = loaded.membership.teamId;
  return (await getItems({ submission: submissionRef(term, code, gradeable.id, teamId) })).submission ?? emptySubmission(teamId);
}

/** A team without a submission yet: "<team> has no submission to regrade." */
const emptySubmission = (ownerId: string) => ({ ownerId, highestVersion: 0, activeVersion: 0, versions: [] }) as unknown as Submission;
