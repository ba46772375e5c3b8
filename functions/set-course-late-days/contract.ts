/** What `set-course-late-days` answers: its success `data` and its own fails (shared/http/contract.ts says how they are used). */
import { lateDayCount, object } from '#shared/http/answers.ts';
import { fail, type RouteContract } from '#shared/http/contract.ts';
import { daysRequired } from '#shared/submissions/failures.ts';

export const contract: RouteContract = {
  tag: 'Summaries',
  data: object({ default_student_late_days: lateDayCount }),
  fails: [fail(daysRequired)],
};
