/** What `student-late-days` answers: its success `data` and its own fails (shared/http/contract.ts says how they are used). */
import * as z from 'zod';
import { accessDenied } from '#shared/errors.ts';
import { components, integer, lateDayCount, lateStatuses, localDate, object, string } from '#shared/http/answers.ts';
import { fail, type RouteContract } from '#shared/http/contract.ts';
import { noStudent, notYourSection } from '#shared/tagrading/failures.ts';

const { LateDayGrant } = components;

export const contract: RouteContract = {
  tag: 'Summaries',
  data: object({
    user_id: string,
    default_student_late_days: lateDayCount,
    grants: z.array(LateDayGrant).describe('Oldest first.'),
    late_days_remaining: lateDayCount.describe('The budget left now (grants that start later not counted).'),
    gradeables: z
      .array(
        object({
          id: string,
          title: string,
          submission_due_date: localDate,
          allowed_late_days: lateDayCount.describe('The gradeable’s own allowance (`late_days`).'),
          late_day_exceptions: lateDayCount.describe('The student’s extension on it (0: none).'),
          reason_for_exception: string,
          days_late: integer.describe('Of the active version; null without one.').nullable(),
          days_charged: integer.nullable(),
          status: z.enum(lateStatuses),
          late_days_remaining: lateDayCount.describe('The budget left after this gradeable.'),
        }),
      )
      .describe('The Electronic File gradeables with a due date the student can see, by due date.'),
  }),
  fails: [fail(accessDenied), fail(noStudent), fail(notYourSection)],
};
