/** What the cross-cutting tests expect of `import-class-list` (test/hardening/test-rows.ts says which tests, and how). */
import { instructorOrSuperuser } from '../../test/hardening/authorization-matrix.ts';
import { COURSE_CHECK } from '../../test/infra/expected-policies.ts';
import type { WriteRouteRows } from '../../test/hardening/test-rows.ts';

export const rows: WriteRouteRows = {
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
      variation: 'a class list of one new student, dry run',
      request: (world) => ({
        query: { dry_run: 'true' },
        body: {
          class_list: `user_id,first_name,last_name,email,registration_section,group\n${world.unique('m')},A,B,ab@example.edu,1,Student\n`,
        },
      }),
      expect: instructorOrSuperuser,
    },
  ],
  validBody: (world) => ({
    class_list: `user_id,first_name,last_name,email,registration_section,group\n${world.userIds.student},Given,Family,s@example.edu,1,Student\n`,
  }),
};
