import { uploadGradeable } from '#shared/gradeables/upload.ts';
import { endpoint } from '#shared/http/endpoint.ts';

export const handler = endpoint('upload-gradeable', {
  handle: ({ course, body }) => uploadGradeable(course, body),
});
