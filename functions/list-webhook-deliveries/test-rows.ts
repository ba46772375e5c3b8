/** What the cross-cutting tests expect of `list-webhook-deliveries` (test/hardening/test-rows.ts says which tests, and how). */
import { instructorOnly } from '../../test/hardening/authorization-matrix.ts';
import { COURSE_CHECK } from '../../test/infra/expected-policies.ts';
import type { ReadRouteRows } from '../../test/hardening/test-rows.ts';

export const rows: ReadRouteRows = {
  policy: [...COURSE_CHECK, 'dynamodb:BatchGetItem webhooks', 'dynamodb:Query webhookDeliveries'],
  authorization: [
    { variation: 'a webhook of the course', request: (world) => ({ params: { webhook_id: world.webhookId } }), expect: instructorOnly },
    {
      variation: 'a page of its deliveries',
      request: (world) => ({ params: { webhook_id: world.webhookId }, query: { page_size: '1' } }),
      expect: instructorOnly,
    },
  ],
};
