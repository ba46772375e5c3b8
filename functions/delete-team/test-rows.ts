/** What the cross-cutting tests expect of `delete-team` (test/hardening/test-rows.ts says which tests, and how). */
import { fail, instructorOnly } from '../../test/hardening/authorization-matrix.ts';
import { COURSE_CHECK } from '../../test/infra/expected-policies.ts';
import type { WriteRouteRows } from '../../test/hardening/test-rows.ts';

export const rows: WriteRouteRows = {
  policy: [
    ...COURSE_CHECK,
    'dynamodb:BatchGetItem gradeables',
    ...['BatchGetItem', 'DeleteItem'].map((action) => `dynamodb:${action} teams`),
    ...['BatchGetItem', 'ConditionCheckItem'].map((action) => `dynamodb:${action} submissions`),
    'dynamodb:PutItem audit',
  ],
  authorization: [
    {
      variation: 'a team that does not exist',
      request: (world) => ({ params: { gradeable_id: world.teamGradeable, team_id: 'nobody' } }),
      expect: { ...instructorOnly, instructor: fail('Team nobody does not exist for this gradeable.', 404) },
    },
  ],
  fuzzedPath: (world) => ({ gradeable_id: world.teamGradeable }),
  // It takes no body.
  validBody: () => ({}),
};
