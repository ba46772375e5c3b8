import { uploadGradeable } from '#shared/gradeables/upload.ts';
import { endpoint } from '#shared/http/endpoint.ts';
import { definition } from './definition.ts';

export const handler = endpoint(definition, {
  handle: ({ course, caller, body, query }) =>
    uploadGradeable(course, body, undefined, { actor: caller.userId, dryRun: query.dry_run === true }),
});
