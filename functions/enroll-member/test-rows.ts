/** What the cross-cutting tests expect of `enroll-member` (test/hardening/test-rows.ts says which tests, and how). */
import { instructorOrSuperuser } from '../../test/hardening/authorization-matrix.ts';
import { COURSE_CHECK } from '../../test/infra/expected-policies.ts';
import type { WriteRouteRows } from '../../test/hardening/test-rows.ts';

export const rows: WriteRouteRows = {
  // Roster changes: each member's enrollment, staff marker and audit entry (and a new account with
  // its password) in one transaction; a removed instructor's check that another stays; the copies
  // on the enrollment settled against their sources afterwards.
  policy: [
    ...COURSE_CHECK,
    'dynamodb:PutItem users',
    'dynamodb:PutItem credentials',
    ...['Query', 'PutItem', 'ConditionCheckItem', 'UpdateItem'].map((action) => `dynamodb:${action} enrollments`),
    'dynamodb:PutItem accessGroups',
    'dynamodb:DeleteItem accessGroups',
    'dynamodb:BatchGetItem terms',
    'dynamodb:PutItem audit',
  ],
  authorization: [
    {
      variation: 'a new user id, with an account',
      request: (world) => ({
        params: { user_id: world.unique('m') },
        body: { group: 'Student', registration_section: '1', first_name: 'Matrix', last_name: 'Member', email: 'matrix@example.edu' },
      }),
      expect: instructorOrSuperuser,
    },
    {
      variation: 'student2 (section 2), unchanged',
      request: (world) => ({ params: { user_id: world.userIds.student2 }, body: { group: 'Student', registration_section: '2' } }),
      expect: instructorOrSuperuser,
    },
  ],
  validBody: () => ({ group: 'Student', registration_section: '1' }),
};
