/** What the cross-cutting tests expect of `create-gradebook-export` (test/hardening/test-rows.ts says which tests, and how). */
import { D, members } from '../../test/hardening/authorization-matrix.ts';
import { COURSE_CHECK } from '../../test/infra/expected-policies.ts';
import type { WriteRouteRows } from '../../test/hardening/test-rows.ts';

export const rows: WriteRouteRows = {
  policy: [
    ...COURSE_CHECK,
    'dynamodb:Query gradeables',
    // The export, written queued, and failed at once if it cannot be queued.
    'dynamodb:PutItem summaries',
    'dynamodb:UpdateItem summaries',
    'sqs:SendMessage summariesQueue',
  ],
  authorization: [{ variation: 'the whole gradebook', request: () => ({ body: { format: 'csv' } }), expect: { ...members, student: D } }],
  validBody: (world) => ({ format: 'csv', gradeable_ids: [world.homework] }),
};
