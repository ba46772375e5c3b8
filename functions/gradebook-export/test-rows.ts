/** What the cross-cutting tests expect of `gradebook-export` (test/hardening/test-rows.ts says which tests, and how). */
import { D, fail, members } from '../../test/hardening/authorization-matrix.ts';
import { COURSE_CHECK } from '../../test/infra/expected-policies.ts';
import type { ReadRouteRows } from '../../test/hardening/test-rows.ts';

const NONE = fail('No gradebook export ge_AAAAAAAAAAAAAAAAAAAAAA of yours in this course.', 404);

export const rows: ReadRouteRows = {
  policy: [...COURSE_CHECK, 'dynamodb:BatchGetItem summaries', 's3:GetObject submissionsBucket/exports/*'],
  authorization: [
    {
      variation: 'an export that does not exist',
      request: () => ({ params: { export_id: 'ge_AAAAAAAAAAAAAAAAAAAAAA' } }),
      expect: { ...members, student: D, mentor: NONE, ta: NONE, instructor: NONE },
    },
  ],
};
