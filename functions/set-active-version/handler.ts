import { endpoint } from '#shared/http/endpoint.ts';
import { courseGradeable } from '#shared/http/reads.ts';
import { activeVersionReads, chooseActiveVersion } from '#shared/submissions/active-version.ts';
import { gradeableNotFound } from '#shared/gradeables/failures.ts';
import { definition } from './definition.ts';

export const handler = endpoint(definition, {
  reads: ({ params, userId }) => activeVersionReads(courseGradeable(params), userId),
  malformed: { gradeable_id: () => gradeableNotFound() },
  handle: ({ caller, enrollment, course, body, items }) =>
    chooseActiveVersion({ caller, enrollment, course, userId: body.user_id, version: body.version }, items),
});
