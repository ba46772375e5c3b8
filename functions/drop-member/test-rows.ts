/** What the cross-cutting tests expect of `drop-member` (test/hardening/test-rows.ts says which tests, and how). */
import { instructorOrSuperuser, NOT_MEMBER } from '../../test/hardening/authorization-matrix.ts';
import { COURSE_CHECK } from '../../test/infra/expected-policies.ts';
import type { WriteRouteRows } from '../../test/hardening/test-rows.ts';

export const rows: WriteRouteRows = {
  policy: [
    ...COURSE_CHECK,
    ...['Query', 'PutItem', 'DeleteItem', 'ConditionCheckItem', 'UpdateItem'].map((action) => `dynamodb:${action} enrollments`),
    'dynamodb:DeleteItem accessGroups',
    'dynamodb:BatchGetItem terms',
    'dynamodb:PutItem audit',
  ],
  authorization: [
    {
      variation: 'a user id of nobody in the course',
      request: () => ({ params: { user_id: 'matrix-nobody' } }),
      expect: {
        ...instructorOrSuperuser,
        instructor: NOT_MEMBER,
        superuser: NOT_MEMBER,
      },
    },
  ],
  // It takes no body.
  validBody: () => ({}),
};
