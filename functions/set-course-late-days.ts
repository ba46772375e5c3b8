import { endpoint } from '#shared/http/endpoint.ts';
import { setCourseLateDays } from '#shared/submissions/late-day-table.ts';

export const handler = endpoint('set-course-late-days', {
  handle: ({ course, body }) => setCourseLateDays(course, body),
});
