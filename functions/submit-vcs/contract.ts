/** What `submit-vcs` answers: its success `data` and its own fails (shared/http/contract.ts says how they are used). */
import { notOnTeam, teamChangedMeanwhile, userNotInCourse } from '#shared/courses/failures.ts';
import { gradeableBusy, invalidGradeableId } from '#shared/gradeables/failures.ts';
import { string } from '#shared/http/answers.ts';
import { fail, lateFails, type RouteContract } from '#shared/http/contract.ts';
import {
  badIdempotencyKey,
  gitRepoIdMissing,
  idempotencyKeyReused,
  notSameUser,
  onlyVcs,
  repositoryUnreadable,
  tooManyJobs,
  tooManySubmissions,
  tooManyVersions,
} from '#shared/submissions/failures.ts';

export const contract: RouteContract = {
  tag: 'Submissions',
  data: string.describe('e.g. `Successfully uploaded version 2 for Homework 1` (plus ` for <user>` when submitting for someone).'),
  fails: [
    fail(notSameUser),
    fail(onlyVcs),
    fail(gitRepoIdMissing),
    fail(invalidGradeableId),
    fail(userNotInCourse),
    fail(notOnTeam),
    fail(teamChangedMeanwhile),
    ...lateFails,
    fail(badIdempotencyKey),
    fail(idempotencyKeyReused),
    fail(tooManySubmissions),
    fail(tooManyJobs),
    fail(tooManyVersions),
    fail(repositoryUnreadable),
    fail(gradeableBusy),
  ],
};
