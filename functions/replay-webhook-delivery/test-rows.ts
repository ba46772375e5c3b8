/** What the cross-cutting tests expect of `replay-webhook-delivery` (test/hardening/test-rows.ts says which tests, and how). */
import { fail, instructorOnly } from '../../test/hardening/authorization-matrix.ts';
import { COURSE_CHECK } from '../../test/infra/expected-policies.ts';
import type { WriteRouteRows } from '../../test/hardening/test-rows.ts';

export const rows: WriteRouteRows = {
  policy: [
    ...COURSE_CHECK,
    'dynamodb:BatchGetItem webhooks',
    'dynamodb:BatchGetItem webhookDeliveries',
    'dynamodb:UpdateItem webhookDeliveries',
    'dynamodb:PutItem webhookOutbox',
    'dynamodb:DeleteItem webhookOutbox',
    'sqs:SendMessage webhookQueue',
  ],
  authorization: [
    {
      variation: 'a delivery that does not exist',
      request: (world) => ({ params: { webhook_id: world.webhookId, delivery_id: 'msg_000000000000000000000' } }),
      expect: { ...instructorOnly, instructor: fail('No delivery msg_000000000000000000000 of this webhook.', 404) },
    },
  ],
  // It takes no body.
  validBody: () => ({}),
};
