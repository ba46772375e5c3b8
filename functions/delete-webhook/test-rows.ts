/** What the cross-cutting tests expect of `delete-webhook` (test/hardening/test-rows.ts says which tests, and how). */
import { instructorOnly } from '../../test/hardening/authorization-matrix.ts';
import { COURSE_CHECK } from '../../test/infra/expected-policies.ts';
import type { WriteRouteRows } from '../../test/hardening/test-rows.ts';

export const rows: WriteRouteRows = {
  policy: [
    ...COURSE_CHECK,
    ...['DeleteItem', 'UpdateItem', 'ConditionCheckItem'].map((action) => `dynamodb:${action} webhooks`),
    'dynamodb:DeleteItem webhookSecrets',
  ],
  authorization: [
    {
      variation: 'a webhook of the course',
      request: (world) => ({ params: { webhook_id: world.doomedWebhookId } }),
      expect: instructorOnly,
    },
  ],
  // It takes no body.
  validBody: () => ({}),
};
