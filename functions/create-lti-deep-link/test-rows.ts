/** What the cross-cutting tests expect of `create-lti-deep-link` (test/hardening/test-rows.ts says which tests, and how). */
import { everyone, fail, U } from '../../test/hardening/authorization-matrix.ts';
import { TOKEN_CHECK } from '../../test/infra/expected-policies.ts';
import type { WriteRouteRows } from '../../test/hardening/test-rows.ts';

const NEEDS_LAUNCH = fail(
  'Gradeables are added to the LMS from a deep-linking launch: open the tool from where the LMS adds content (an assignment’s or activity’s external tool), then pick them.',
  403,
);

export const rows: WriteRouteRows = {
  // The caller's launch session with the token check; their enrollment and the gradeables in one batch, the registration, the tool's key.
  policy: [
    ...TOKEN_CHECK,
    'dynamodb:BatchGetItem enrollments',
    'dynamodb:BatchGetItem gradeables',
    'dynamodb:GetItem lti',
    'secretsmanager:GetSecretValue ltiKey',
  ],
  authorization: [
    {
      variation: 'an API token, not a deep-linking launch session',
      request: (world) => ({ body: { gradeable_ids: [world.openGradeable] } }),
      expect: { ...everyone(NEEDS_LAUNCH), anonymous: U },
    },
  ],
  validBody: (world) => ({ gradeable_ids: [world.homework] }),
};
