/** What `regrade` answers: its success `data` and its own fails (shared/http/contract.ts says how they are used). */
import { notOnTeam, userNotInCourse } from '#shared/courses/failures.ts';
import { invalidGradeableId, noSuchVersion } from '#shared/gradeables/failures.ts';
import {
  noActiveVersionToRegrade,
  nothingToRegrade,
  regradeOnlyAutograded,
  regradeVersionNeedsUser,
  regradeVersionNotWhole,
} from '#shared/grading/failures.ts';
import { components } from '#shared/http/answers.ts';
import { fail, type RouteContract } from '#shared/http/contract.ts';

const { Regrade } = components;

export const contract: RouteContract = {
  tag: 'Submissions',
  data: Regrade,
  fails: [
    fail(invalidGradeableId),
    fail(regradeOnlyAutograded),
    fail(regradeVersionNotWhole),
    fail(regradeVersionNeedsUser),
    fail(userNotInCourse),
    fail(notOnTeam),
    fail(nothingToRegrade),
    fail(noActiveVersionToRegrade),
    fail(noSuchVersion),
  ],
};
