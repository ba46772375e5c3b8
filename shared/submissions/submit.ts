/**
 * Submitting a version: refuse → plan → commit. Every refusal that costs nothing first, in the
 * reference's order (submit-refuse.ts, its rules pure in submit-refusals.ts); then what the version
 * is made of (a VCS version's commit, read from its repository; a files version's files, stored by
 * submit-files.ts); then its one transaction (submit-commit.ts), planned with its items named
 * (submit-plan.ts), which creates version n = highest + 1, makes it active and queues its job
 * (shared/queue/). With an Idempotency-Key, a retry within 24 hours gets the first answer and
 * creates nothing.
 */
import { idempotencyRef } from '#shared/data/idempotency.ts';
import { countersRef, loadRef } from '#shared/data/jobs.ts';
import { submissionRef } from '#shared/data/submissions.ts';
import type { GradeableDocument } from '#shared/gradeables/gradeable.ts';
import { gradeableRef } from '#shared/gradeables/stored.ts';
import { isValidIdempotencyKey, type CourseGradeable } from '#shared/ids.ts';
import { repositoryUrl } from '#shared/gradeables/repository.ts';
import { courseShards } from '#shared/queue/tickets.ts';
import { resolveCommit } from './commit.ts';
import { gitRepoIdMissing, onlyVcs } from './failures.ts';
import { VersionCommit, type SubmitAnswer } from './submit-commit.ts';
import { admit, answeredOrRefused, firstRead, type SubmitContext, type VersionRequest } from './submit-refuse.ts';
import { refuse, submitterRefusal } from './submit-refusals.ts';
import { courseGroups } from '#shared/courses/course.ts';

export type { SubmitContext, SubmitFields } from './submit-refuse.ts';
export type { SubmitAnswer } from './submit-commit.ts';

/**
 * What a submission reads, declared with the token check so that a submission for oneself costs
 * this read, its ticket's reservation and the transaction. A malformed gradeable id reads nothing
 * real. Never the whole queue: only the course's two counters of the minute (courseShards).
 */
export function submitReads(gradeable: CourseGradeable, callerId: string, idempotencyKey: string | undefined, now = new Date()) {
  const { term, course, gradeableId } = gradeable;
  return {
    gradeable: gradeableRef(term, course, gradeableId),
    submission: submissionRef(term, course, gradeableId, callerId),
    queue: countersRef(courseShards(term, course, now)),
    // The caller's jobs queued or being graded (MAX_QUEUED_JOBS_PER_STUDENT).
    load: loadRef(callerId),
    ...(idempotencyKey !== undefined && isValidIdempotencyKey(idempotencyKey)
      ? { previous: idempotencyRef(`${callerId}#${idempotencyKey}`) }
      : {}),
  };
}

/**
 * Submits a VCS gradeable: checks in the reference's order (docs/reference-compatibility.md), then creates
 * version n = highest + 1 bound to its repository's head, makes it active and queues it for grading in one transaction.
 */
export async function submitVcs(context: SubmitContext, now = new Date()): Promise<SubmitAnswer> {
  const { caller, enrollment, fields } = context;
  const target = fields.userId ?? caller.userId;
  refuse(submitterRefusal(caller.userId, target, enrollment.group <= courseGroups.fullAccessGrader));
  if (!fields.vcsCheckout) throw onlyVcs();
  if (fields.gitRepoId === undefined || fields.gitRepoId === '') throw gitRepoIdMissing();
  const request: VersionRequest = {
    kind: 'vcs',
    identity: { vcs_checkout: fields.vcsCheckout === true, git_repo_id: String(fields.gitRepoId) },
    claims: 0,
  };
  for (let current = context; ;) {
    const admitted = await admit(current, request, now);
    const first = await firstRead(admitted, current, now);
    const answered = answeredOrRefused(admitted, first, now);
    // The commit the version is bound to: its repository's head, read once (a round trip to the
    // repository's server), so after every refusal that costs nothing; a repeat answered before reads nothing.
    const vcs = admitted.gradeable.vcs as NonNullable<GradeableDocument['vcs']>;
    const commit = answered ? undefined : await resolveCommit(vcs, admitted.owner);
    const repository = answered ? undefined : repositoryUrl(vcs, admitted.owner);
    const committed = await new VersionCommit(admitted, first, { commit, repository }, now).run();
    if (committed.next === 'answer') return committed.answer;
    current = { ...current, gradeable: committed.gradeable };
  }
}
