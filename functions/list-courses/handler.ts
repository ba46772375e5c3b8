import { listCourses } from '#shared/courses/course.ts';
import { courseListingsOf, listedUser } from '#shared/courses/members.ts';
import { endpoint } from '#shared/http/endpoint.ts';
import { forbidden } from '#shared/errors.ts';
import { isSuperuser } from '#shared/users/user.ts';
import { definition } from './definition.ts';

export const handler = endpoint(definition, {
  alongside: ({ userId, query }) => courseListingsOf(listedUser(query.user_id, userId)),
  handle: ({ caller, query, alongside }) => {
    if (listedUser(query.user_id, caller.userId) !== caller.userId && !isSuperuser(caller)) throw forbidden();
    return listCourses(alongside);
  },
});
