/** What the cross-cutting tests expect of `submission-files` (test/hardening/test-rows.ts says which tests, and how). */
import { fail, NOT_SAME_USER, noFiles } from '../../test/hardening/authorization-matrix.ts';
import { COURSE_CHECK } from '../../test/infra/expected-policies.ts';
import type { ReadRouteRows } from '../../test/hardening/test-rows.ts';

export const rows: ReadRouteRows = {
  policy: [
    ...COURSE_CHECK,
    ...['gradeables', 'teams', 'submissions'].map((table) => `dynamodb:BatchGetItem ${table}`),
    // Presigned GETs of a version's files, listed first.
    's3:GetObject submissionsBucket/versions/*',
    's3:ListBucket submissionsBucket',
  ],
  authorization: [
    {
      variation: 'own version 1',
      request: (world) => ({ params: { gradeable_id: world.openGradeable }, query: { version: '1' } }),
      expect: noFiles(),
    },
    {
      variation: "student2 (section 2, outside the mentor's) via user_id",
      request: (world) => ({ params: { gradeable_id: world.openGradeable }, query: { version: '1', user_id: world.userIds.student2 } }),
      expect: { ...noFiles(), student: NOT_SAME_USER, mentor: fail('You do not grade section 2.', 403) },
    },
  ],
  fuzzedPath: (world) => ({ gradeable_id: world.filesGradeable }),
};
