/** What the cross-cutting tests expect of `create-webhook` (test/hardening/test-rows.ts says which tests, and how). */
import { instructorOnly } from '../../test/hardening/authorization-matrix.ts';
import { COURSE_CHECK } from '../../test/infra/expected-policies.ts';
import type { WriteRouteRows } from '../../test/hardening/test-rows.ts';

export const rows: WriteRouteRows = {
  // The course's webhook count, raised within the limit in the webhook's own transaction (and lowered with its removal).
  policy: [
    ...COURSE_CHECK,
    ...['Query', 'PutItem', 'UpdateItem'].map((action) => `dynamodb:${action} webhooks`),
    'dynamodb:PutItem webhookSecrets',
  ],
  authorization: [
    {
      variation: 'a receiver for failed gradings',
      request: (world) => ({ body: { url: world.webhookUrl, events: ['submission.failed'] } }),
      expect: instructorOnly,
    },
  ],
  validBody: (world) => ({ url: world.webhookUrl, events: ['submission.failed'], description: 'Fuzz' }),
};
