import { courseConfig } from '#shared/courses/settings.ts';
import { endpoint } from '#shared/http/endpoint.ts';

export const handler = endpoint('course-config', {
  handle: ({ course }) => courseConfig(course),
});
