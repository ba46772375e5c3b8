/** What `publish-lti-scores` answers: its success `data` and its own fails (shared/http/contract.ts says how they are used). */
import { boolean, count, object, string } from '#shared/http/answers.ts';
import { fail, type RouteContract } from '#shared/http/contract.ts';
import { invalidGradeableId } from '#shared/gradeables/failures.ts';
import { scoresNotLinked } from '#shared/lti/failures.ts';

export const contract: RouteContract = {
  tag: 'LTI',
  data: object({
    gradeable_id: string,
    team_gradeable: boolean.describe('Whether `queued` counts teams (each member is sent the team’s grade).'),
    queued: count('Students (or teams) with a grade, each sent again to every linked LMS course that takes scores.'),
    lms_courses: count('The linked LMS courses that take scores.'),
  }),
  fails: [fail(invalidGradeableId), fail(scoresNotLinked)],
};
