/** What the cross-cutting tests expect of `grading-record` (test/hardening/test-rows.ts says which tests, and how). */
import { fail, members, NOT_SAME_USER, type MatrixPersona, type Outcome } from '../../test/hardening/authorization-matrix.ts';
import { COURSE_CHECK } from '../../test/infra/expected-policies.ts';
import type { ReadRouteRows } from '../../test/hardening/test-rows.ts';

/** The matrix's world grades nothing: version 1 is there, without a record, in the state it is left in. */
function notGraded(state: string): Record<MatrixPersona, Outcome> {
  const none = fail(`Version 1 has no grading record: it is ${state}, and a record is made when a version is graded.`, 404);
  return { ...members, student: none, mentor: none, ta: none, instructor: none };
}

export const rows: ReadRouteRows = {
  policy: [...COURSE_CHECK, ...['gradeables', 'teams', 'submissions', 'results'].map((table) => `dynamodb:BatchGetItem ${table}`)],
  authorization: [
    {
      variation: 'own version 1',
      request: (world) => ({ params: { gradeable_id: world.openGradeable }, query: { version: '1' } }),
      expect: notGraded('superseded'),
    },
    {
      variation: "student2 (section 2, outside the mentor's) via user_id",
      request: (world) => ({ params: { gradeable_id: world.openGradeable }, query: { version: '1', user_id: world.userIds.student2 } }),
      expect: { ...notGraded('queued'), student: NOT_SAME_USER, mentor: fail('You do not grade section 2.', 403) },
    },
  ],
  fuzzedPath: (world) => ({ gradeable_id: world.filesGradeable }),
};
