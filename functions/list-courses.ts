import { listCourses } from '#shared/courses/course.ts';
import { courseListingsOf } from '#shared/courses/members.ts';
import { endpoint } from '#shared/http/endpoint.ts';
import { forbidden } from '#shared/errors.ts';
import { isSuperuser, isValidUserId } from '#shared/users/user.ts';

export const handler = endpoint('list-courses', {
  handle: async ({ caller, query }) => {
    const userId = query.user_id ?? caller.userId;
    if (userId !== caller.userId && !isSuperuser(caller)) throw forbidden();
    if (!isValidUserId(userId)) return listCourses([]);
    return listCourses(await courseListingsOf(userId));
  },
});
