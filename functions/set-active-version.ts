import { endpoint } from '#shared/http/endpoint.ts';
import { activeVersionReads, chooseActiveVersion } from '#shared/submissions/active-version.ts';

export const handler = endpoint('set-active-version', {
  reads: activeVersionReads,
  handle: ({ caller, enrollment, course, params, body, items }) =>
    chooseActiveVersion({ caller, enrollment: enrollment!, course, params, body }, items),
});
