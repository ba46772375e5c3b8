/** What the cross-cutting tests expect of `create-similarity-run` (test/hardening/test-rows.ts says which tests, and how). */
import { instructorOnly } from '../../test/hardening/authorization-matrix.ts';
import { COURSE_CHECK } from '../../test/infra/expected-policies.ts';
import type { WriteRouteRows } from '../../test/hardening/test-rows.ts';

export const rows: WriteRouteRows = {
  policy: [
    ...COURSE_CHECK,
    // The gradeable, and those compare_with names, with the caller's enrollments there and their terms.
    'dynamodb:BatchGetItem gradeables',
    'dynamodb:BatchGetItem terms',
    // The run, written queued, and failed at once if it cannot be queued.
    'dynamodb:PutItem summaries',
    'dynamodb:UpdateItem summaries',
    'sqs:SendMessage summariesQueue',
  ],
  authorization: [
    {
      variation: 'the open gradeable',
      request: (world) => ({ params: { gradeable_id: world.openGradeable }, body: {} }),
      expect: instructorOnly,
    },
  ],
  validBody: () => ({
    language: 'python',
    starter_code: [{ path: 'main.py', content: 'print(1)\n' }],
    min_match_tokens: 40,
    compare_with: [],
  }),
};
