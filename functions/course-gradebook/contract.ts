/** What `course-gradebook` answers: its success `data` and its own fails (shared/http/contract.ts says how they are used). */
import * as z from 'zod';
import { integer, lateDayCount, number, object, string } from '#shared/http/answers.ts';
import { pageFails, type RouteContract } from '#shared/http/contract.ts';
import { cellStatuses } from '#shared/gradebook/page.ts';

export const contract: RouteContract = {
  tag: 'Grading',
  data: object({
    gradeables: z
      .array(
        object({
          id: string,
          title: string,
          max: number.describe('The most points: test cases but extra credit (hidden ones too) and the rubric.'),
        }),
      )
      .describe("Those released to staff (from their TA view date), in the course's order (by due date): the cells' order."),
    students: z
      .array(
        object({
          user_id: string,
          first_name: string,
          last_name: string,
          registration_section: string,
          rotating_section: string.nullable(),
          late_days_used: lateDayCount,
          late_days_remaining: lateDayCount,
          gradeables: z.array(
            object({
              gradeable_id: string,
              score: number.describe("The gradeable's gradebook's total_score: autograding plus TA points, 0 when Bad (too late)."),
              max: number,
              days_late: integer,
              status: z.enum(cellStatuses).describe("The active version's grading state; `graded` for a complete TA grade without one."),
            }),
          ),
        }),
      )
      .describe('By registration section (those that are numbers first, by number; then the others by character), then user id.'),
    next_cursor: string.describe('Pass as `cursor` for the next page; null on the last.').nullable(),
  }),
  fails: [...pageFails],
  successHeaders: ['Link'],
};
