import { uploadGradeable } from '#shared/gradeables/upload.ts';
import { endpoint } from '#shared/http/endpoint.ts';
import { definition } from './definition.ts';

export const handler = endpoint(definition, {
  handle: ({ course, body }) => uploadGradeable(course, body),
});
