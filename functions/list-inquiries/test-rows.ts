/** What the cross-cutting tests expect of `list-inquiries` (test/hardening/test-rows.ts says which tests, and how). */
import { members } from '../../test/hardening/authorization-matrix.ts';
import { COURSE_CHECK } from '../../test/infra/expected-policies.ts';
import type { ReadRouteRows } from '../../test/hardening/test-rows.ts';

export const rows: ReadRouteRows = {
  policy: [...COURSE_CHECK, 'dynamodb:Query inquiries'],
  // Each member sees what is theirs to see (their own, their sections', all): test/http/inquiries.test.ts.
  authorization: [
    { variation: 'every inquiry', request: () => ({}), expect: members },
    {
      variation: 'the open ones of a gradeable',
      request: (world) => ({ query: { status: 'open', gradeable_id: world.openGradeable } }),
      expect: members,
    },
  ],
};
