import { uploadGradeable } from '#shared/gradeables/upload.ts';
import { endpoint } from '#shared/http/endpoint.ts';

export const handler = endpoint('upload-gradeable', {
  handle: ({ course, caller, body, query }) =>
    uploadGradeable(course, body, undefined, { actor: caller.userId, dryRun: query.dry_run === true }),
});
