/** What the cross-cutting tests expect of `similarity-pair` (test/hardening/test-rows.ts says which tests, and how). */
import { fail, instructorOnly } from '../../test/hardening/authorization-matrix.ts';
import { COURSE_CHECK } from '../../test/infra/expected-policies.ts';
import type { ReadRouteRows } from '../../test/hardening/test-rows.ts';

const RUN = 'sr_AAAAAAAAAAAAAAAAAAAAAA';

export const rows: ReadRouteRows = {
  policy: [
    ...COURSE_CHECK,
    'dynamodb:BatchGetItem summaries',
    's3:GetObject submissionsBucket/versions/*',
    's3:GetObject submissionsBucket/fingerprints/*',
    's3:ListBucket submissionsBucket',
  ],
  authorization: [
    {
      variation: 'a pair of a run that does not exist',
      request: (world) => ({ params: { gradeable_id: world.openGradeable, run_id: RUN, pair_id: '1' } }),
      expect: { ...instructorOnly, instructor: fail(`No pair 1 in similarity run ${RUN} of this gradeable.`, 404) },
    },
  ],
  fuzzedPath: () => ({ run_id: RUN, pair_id: '1' }),
};
