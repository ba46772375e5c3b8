/** What `delete-team` answers: its success `data` and its own fails (shared/http/contract.ts says how they are used). */
import * as z from 'zod';
import { notTeamGradeable, teamChangedMeanwhile, teamHasSubmissions, teamNotFound } from '#shared/courses/failures.ts';
import { fail, gradeableNotFound, type RouteContract } from '#shared/http/contract.ts';

export const contract: RouteContract = {
  tag: 'Courses',
  data: z.null(),
  fails: [gradeableNotFound, fail(notTeamGradeable), fail(teamNotFound), fail(teamHasSubmissions), fail(teamChangedMeanwhile)],
};
