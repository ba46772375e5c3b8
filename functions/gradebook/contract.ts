/** What `gradebook` answers: its success `data` and its own fails (shared/http/contract.ts says how they are used). */
import * as z from 'zod';
import { boolean, gradingStates, integer, lateStatuses, number, object, string } from '#shared/http/answers.ts';
import { gradeableNotFound, pageFails, type RouteContract } from '#shared/http/contract.ts';

export const contract: RouteContract = {
  tag: 'Grading',
  data: object({
    gradeable_id: string,
    students: z
      .array(
        object({
          user_id: string,
          registration_section: string,
          team_id: string.nullable(),
          has_submission: boolean,
          highest_version: integer,
          active_version: integer.describe('0: none.'),
          grading_state: z.enum(gradingStates).nullable(),
          autograding_score: number.nullable(),
          tagrading_score: number.nullable(),
          ta_grading_complete: boolean,
          total_score: number.describe('Autograding plus TA points, never below 0; 0 when Bad (too late).'),
          days_late: integer,
          status: z.enum(lateStatuses),
          grader_id: string.describe('Who graded last.').nullable(),
        }),
      )
      .describe('By registration section (those that are numbers first, by number; then the others by character), then user id.'),
    next_cursor: string.describe('Pass as `cursor` for the next page; null on the last.').nullable(),
  }),
  fails: [gradeableNotFound, ...pageFails],
  successHeaders: ['Link'],
};
