/** What `submit-files` answers: its success `data` and its own fails (shared/http/contract.ts says how they are used). */
import { notOnTeam, teamChangedMeanwhile, userNotInCourse } from '#shared/courses/failures.ts';
import { gradeableBusy, invalidGradeableId } from '#shared/gradeables/failures.ts';
import { string } from '#shared/http/answers.ts';
import { fail, fileFails, lateFails, type RouteContract } from '#shared/http/contract.ts';
import { bodyTooLarge } from '#shared/http/failures.ts';
import {
  badIdempotencyKey,
  idempotencyKeyReused,
  notSameUser,
  tooManyJobs,
  tooManySubmissions,
  tooManyVersions,
} from '#shared/submissions/failures.ts';

export const contract: RouteContract = {
  tag: 'Submissions',
  data: string.describe('e.g. `Successfully uploaded version 2 for Homework 1` (plus ` for <user>` when submitting for someone).'),
  fails: [
    fail(notSameUser),
    fail(invalidGradeableId),
    ...fileFails,
    fail(userNotInCourse),
    fail(notOnTeam),
    fail(teamChangedMeanwhile),
    ...lateFails,
    fail(badIdempotencyKey),
    fail(idempotencyKeyReused),
    fail(tooManySubmissions),
    fail(tooManyJobs),
    fail(tooManyVersions),
    fail(gradeableBusy),
    // Files in the body: a larger body than other routes take.
    { status: 413, message: bodyTooLarge(4 * 1024 * 1024).message },
  ],
};
