/** What the cross-cutting tests expect of `upload-gradeable` (test/hardening/test-rows.ts says which tests, and how). */
import { instructorOnly } from '../../test/hardening/authorization-matrix.ts';
import { COURSE_CHECK } from '../../test/infra/expected-policies.ts';
import { publicVcs } from '../../test/support/gradeables.ts';
import type { WriteRouteRows } from '../../test/hardening/test-rows.ts';

export const rows: WriteRouteRows = {
  policy: [
    ...COURSE_CHECK,
    'dynamodb:ConditionCheckItem courses',
    'dynamodb:BatchGetItem gradeables',
    'dynamodb:PutItem gradeables',
    'dynamodb:PutItem audit',
  ],
  authorization: [
    {
      variation: 'a new gradeable',
      request: (world) => ({ body: { id: world.unique('hw'), title: 'Matrix homework', type: 'Electronic File' } }),
      expect: instructorOnly,
    },
  ],
  validBody: (world) => ({
    id: world.unique('fz'),
    title: 'Fuzz',
    type: 'Electronic File',
    syllabus_bucket: 'homework',
    vcs: publicVcs('o/{$user_id}'),
    dates: { submission_open_date: '2026-01-01 00:00:00', submission_due_date: '2026-02-01 00:00:00' },
    rubric: [],
    autograding: { test_cases: [{ name: 'a', command: 'true' }] },
  }),
};
