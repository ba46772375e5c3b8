/** What `submit-vcs` answers: its success `data` and its own fails (shared/http/contract.ts says how they are used). */
import { courseArchived } from '#shared/courses/failures.ts';
import { gradeableBusy, invalidGradeableId } from '#shared/gradeables/failures.ts';
import * as z from 'zod';
import { components, string } from '#shared/http/answers.ts';
import { fail, versionFails, type RouteContract } from '#shared/http/contract.ts';
import { gitRepoIdMissing, notSameUser, onlyVcs, repositoryUnreadable } from '#shared/submissions/failures.ts';

export const contract: RouteContract = {
  tag: 'Submissions',
  data: z.union([
    string.describe(
      'e.g. `Successfully uploaded version 2 for Homework 1` (plus ` for <user>` when submitting for someone); with `Prefer: return=representation`, the version instead.',
    ),
    components.SubmissionRepresentation,
  ]),
  fails: [
    fail(courseArchived),
    fail(notSameUser),
    fail(onlyVcs),
    fail(gitRepoIdMissing),
    fail(invalidGradeableId),
    ...versionFails,
    fail(repositoryUnreadable),
    fail(gradeableBusy),
  ],
};
