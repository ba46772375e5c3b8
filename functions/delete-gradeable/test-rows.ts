/** What the cross-cutting tests expect of `delete-gradeable` (test/hardening/test-rows.ts says which tests, and how). */
import { fail, instructorOnly } from '../../test/hardening/authorization-matrix.ts';
import { COURSE_CHECK } from '../../test/infra/expected-policies.ts';
import type { WriteRouteRows } from '../../test/hardening/test-rows.ts';

export const rows: WriteRouteRows = {
  policy: [
    ...COURSE_CHECK,
    ...['BatchGetItem', 'UpdateItem', 'DeleteItem'].map((action) => `dynamodb:${action} gradeables`),
    'dynamodb:Query submissions',
    'dynamodb:Query teams',
    'dynamodb:PutItem audit',
  ],
  // Course instructors only. A gradeable that does not exist keeps the world as it is.
  authorization: [
    {
      variation: 'a gradeable that does not exist',
      request: (world) => ({ params: { gradeable_id: world.unique('hw') } }),
      expect: { ...instructorOnly, instructor: fail('Gradeable does not exist', 404) },
    },
  ],
  // Deleting would take the world away from the other routes: a gradeable that does not exist.
  fuzzedPath: () => ({ gradeable_id: 'no_such_gradeable' }),
  // It takes no body.
  validBody: () => ({}),
};
