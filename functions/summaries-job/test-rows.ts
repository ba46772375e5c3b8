/** What the cross-cutting tests expect of `summaries-job` (test/hardening/test-rows.ts says which tests, and how). */
import { fail, instructorOnly } from '../../test/hardening/authorization-matrix.ts';
import { COURSE_CHECK } from '../../test/infra/expected-policies.ts';
import type { ReadRouteRows } from '../../test/hardening/test-rows.ts';

export const rows: ReadRouteRows = {
  policy: [...COURSE_CHECK, 'dynamodb:BatchGetItem summaries'],
  authorization: [
    {
      variation: 'a summaries job that does not exist',
      request: () => ({ params: { job_id: 'sj_AAAAAAAAAAAAAAAAAAAAAA' } }),
      expect: { ...instructorOnly, instructor: fail('No summaries job sj_AAAAAAAAAAAAAAAAAAAAAA in this course.', 404) },
    },
  ],
};
