import { setCourseConfig } from '#shared/courses/settings.ts';
import { endpoint } from '#shared/http/endpoint.ts';
import { definition } from './definition.ts';

export const handler = endpoint(definition, {
  handle: ({ course, caller, body }) => setCourseConfig(course, caller, body),
});
