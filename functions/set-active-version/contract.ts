/** What `set-active-version` answers: its success `data` and its own fails (shared/http/contract.ts says how they are used). */
import * as z from 'zod';
import { notOnTeam, teamChangedMeanwhile, userNotInCourse } from '#shared/courses/failures.ts';
import { noSuchVersion } from '#shared/gradeables/failures.ts';
import { integer, object, string } from '#shared/http/answers.ts';
import { fail, gradeableNotFound, type RouteContract } from '#shared/http/contract.ts';
import { nothingSubmitted, notSameUser, onlyElectronicVersions, versionMissing } from '#shared/submissions/failures.ts';

export const contract: RouteContract = {
  tag: 'Submissions',
  data: object({
    active_version: z.int().min(0).describe('0: no active version (cancelled).'),
    highest_version: integer,
    message: string,
  }),
  fails: [
    gradeableNotFound,
    fail(notSameUser),
    fail(userNotInCourse),
    fail(onlyElectronicVersions),
    fail(notOnTeam),
    fail(teamChangedMeanwhile),
    fail(versionMissing),
    fail(nothingSubmitted),
    fail(noSuchVersion),
  ],
};
