/** What the cross-cutting tests expect of `list-lti-scores` (test/hardening/test-rows.ts says which tests, and how). */
import { instructorOrSuperuser } from '../../test/hardening/authorization-matrix.ts';
import { COURSE_CHECK } from '../../test/infra/expected-policies.ts';
import type { ReadRouteRows } from '../../test/hardening/test-rows.ts';

export const rows: ReadRouteRows = {
  policy: [...COURSE_CHECK, 'dynamodb:Query lti'],
  authorization: [
    { variation: 'the course', request: () => ({}), expect: instructorOrSuperuser },
    {
      variation: 'the failed deliveries of a gradeable, a page at a time',
      request: (world) => ({ query: { state: 'failed', gradeable_id: world.openGradeable, page_size: '1' } }),
      expect: instructorOrSuperuser,
    },
  ],
};
