/** What the cross-cutting tests expect of `decide-similarity-pair` (test/hardening/test-rows.ts says which tests, and how). */
import { fail, instructorOnly } from '../../test/hardening/authorization-matrix.ts';
import { COURSE_CHECK } from '../../test/infra/expected-policies.ts';
import type { WriteRouteRows } from '../../test/hardening/test-rows.ts';

const RUN = 'sr_AAAAAAAAAAAAAAAAAAAAAA';

export const rows: WriteRouteRows = {
  policy: [
    ...COURSE_CHECK,
    'dynamodb:BatchGetItem summaries',
    // The decision, conditioned on the revision read, with its audit entry in one transaction.
    'dynamodb:UpdateItem summaries',
    'dynamodb:PutItem audit',
  ],
  authorization: [
    {
      variation: 'a pair of a run that does not exist',
      request: (world) => ({
        params: { gradeable_id: world.openGradeable, run_id: RUN, pair_id: '1' },
        body: { decision: 'dismissed', revision: 0 },
      }),
      expect: { ...instructorOnly, instructor: fail(`No pair 1 in similarity run ${RUN} of this gradeable.`, 404) },
    },
  ],
  fuzzedPath: () => ({ run_id: RUN, pair_id: '1' }),
  validBody: () => ({ decision: 'confirmed', note: 'The same passages, renamed.', revision: 0 }),
};
