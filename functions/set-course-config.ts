import { setCourseSetting } from '#shared/courses/settings.ts';
import { endpoint } from '#shared/http/endpoint.ts';

export const handler = endpoint('set-course-config', {
  handle: ({ course, caller, body }) => setCourseSetting(course, caller.userId, body),
});
