/** What `set-extension` answers: its success `data` and its own fails (shared/http/contract.ts says how they are used). */
import { lateDayCount, object, string } from '#shared/http/answers.ts';
import { fail, gradeableNotFound, type RouteContract } from '#shared/http/contract.ts';
import { daysRequired, onlyElectronicLateDays } from '#shared/submissions/failures.ts';
import { noStudent } from '#shared/tagrading/failures.ts';

export const contract: RouteContract = {
  tag: 'Summaries',
  data: object({ user_id: string, gradeable_id: string, late_day_exceptions: lateDayCount, reason_for_exception: string }),
  fails: [gradeableNotFound, fail(noStudent), fail(onlyElectronicLateDays), fail(daysRequired)],
};
