/** What `drop-member` answers: its success `data` and its own fails (shared/http/contract.ts says how they are used). */
import { badUserId, lastInstructor, memberChanged, userNotInCourse } from '#shared/courses/failures.ts';
import { components, object, string } from '#shared/http/answers.ts';
import { fail, type RouteContract } from '#shared/http/contract.ts';

const { CourseUser } = components;

export const contract: RouteContract = {
  tag: 'Courses',
  data: object({
    user_id: string,
    member: CourseUser.nullable().describe('A dropped student as the users list shows them; null for staff, who left the list.'),
  }),
  fails: [fail(badUserId), fail(userNotInCourse), fail(lastInstructor), fail(memberChanged)],
};
