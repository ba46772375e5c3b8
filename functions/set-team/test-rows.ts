/** What the cross-cutting tests expect of `set-team` (test/hardening/test-rows.ts says which tests, and how). */
import { instructorOnly } from '../../test/hardening/authorization-matrix.ts';
import { COURSE_CHECK } from '../../test/infra/expected-policies.ts';
import type { WriteRouteRows } from '../../test/hardening/test-rows.ts';

export const rows: WriteRouteRows = {
  policy: [
    ...COURSE_CHECK,
    'dynamodb:BatchGetItem gradeables',
    ...['BatchGetItem', 'PutItem', 'UpdateItem', 'DeleteItem'].map((action) => `dynamodb:${action} teams`),
    // A team's submission, as read, is a condition of the change (none: nothing submitted meanwhile).
    ...['BatchGetItem', 'ConditionCheckItem'].map((action) => `dynamodb:${action} submissions`),
    'dynamodb:PutItem audit',
  ],
  authorization: [
    {
      variation: 'a new team of a student',
      request: (world) => ({
        params: { gradeable_id: world.teamGradeable, team_id: world.unique('team') },
        body: { members: [world.userIds.student] },
      }),
      expect: instructorOnly,
    },
  ],
  fuzzedPath: (world) => ({ gradeable_id: world.teamGradeable }),
  validBody: (world) => ({ members: [world.userIds.student, world.userIds.student2] }),
};
