/** What the cross-cutting tests expect of `similarity-run` (test/hardening/test-rows.ts says which tests, and how). */
import { fail, instructorOnly } from '../../test/hardening/authorization-matrix.ts';
import { COURSE_CHECK } from '../../test/infra/expected-policies.ts';
import type { ReadRouteRows } from '../../test/hardening/test-rows.ts';

const RUN = 'sr_AAAAAAAAAAAAAAAAAAAAAA';

export const rows: ReadRouteRows = {
  policy: [...COURSE_CHECK, 'dynamodb:BatchGetItem summaries', 'dynamodb:Query summaries'],
  authorization: [
    {
      variation: 'a run that does not exist',
      request: (world) => ({ params: { gradeable_id: world.openGradeable, run_id: RUN } }),
      expect: { ...instructorOnly, instructor: fail(`No similarity run ${RUN} of this gradeable.`, 404) },
    },
  ],
  fuzzedPath: () => ({ run_id: RUN }),
};
