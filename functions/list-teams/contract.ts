/** What `list-teams` answers: its success `data` and its own fails (shared/http/contract.ts says how they are used). */
import * as z from 'zod';
import { notTeamGradeable } from '#shared/courses/failures.ts';
import { components } from '#shared/http/answers.ts';
import { fail, gradeableNotFound, pageFails, type RouteContract } from '#shared/http/contract.ts';

const { Team } = components;

export const contract: RouteContract = {
  tag: 'Courses',
  data: z.array(Team).describe('By team id.'),
  fails: [gradeableNotFound, fail(notTeamGradeable), ...pageFails],
  successHeaders: ['Link'],
};
