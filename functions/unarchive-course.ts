import { setCourseArchived } from '#shared/courses/settings.ts';
import { endpoint } from '#shared/http/endpoint.ts';

export const handler = endpoint('unarchive-course', {
  handle: ({ course, caller }) => setCourseArchived(course, caller, false),
});
