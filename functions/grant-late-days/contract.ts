/** What `grant-late-days` answers: its success `data` and its own fails (shared/http/contract.ts says how they are used). */
import * as z from 'zod';
import { components, object, string } from '#shared/http/answers.ts';
import { fail, type RouteContract } from '#shared/http/contract.ts';
import { badGrantStart, daysRequired } from '#shared/submissions/failures.ts';
import { noStudent } from '#shared/tagrading/failures.ts';

const { LateDayGrant } = components;

export const contract: RouteContract = {
  tag: 'Summaries',
  data: object({ user_id: string, grants: z.array(LateDayGrant).describe("The student's grants, oldest first.") }),
  fails: [fail(noStudent), fail(daysRequired), fail(badGrantStart)],
};
