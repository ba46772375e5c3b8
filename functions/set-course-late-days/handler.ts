import { endpoint } from '#shared/http/endpoint.ts';
import { setCourseLateDays } from '#shared/submissions/late-day-table.ts';
import { definition } from './definition.ts';

export const handler = endpoint(definition, {
  handle: ({ course, body }) => setCourseLateDays(course, body),
});
