import * as z from 'zod/mini';
import { route } from '#shared/http/routes.ts';
import { DELIVERIES_PAGE, deliveryStates } from '#shared/webhooks/delivery.ts';
import { documented } from '#shared/http/fields.ts';
import { paging } from '#shared/http/parameters.ts';

export const definition = route({
  name: 'list-webhook-deliveries',
  method: 'GET',
  path: '/api/{semester}/{course}/webhooks/{webhook_id}/deliveries',
  access: 'course:instructor',
  summary:
    "A webhook's deliveries: newest first, each with its payload and every attempt (state=failed: those that gave up), paged with page_size and cursor.",
  data: { webhooks: ['BatchGetItem'], webhookDeliveries: ['Query'] },
  input: () => ({
    query: {
      state: z.optional(
        documented(z.string(), {
          description: 'Only deliveries in this state (`failed`: those kept for replay).',
          enum: [...deliveryStates],
        }),
      ),
      ...paging('Deliveries', DELIVERIES_PAGE),
    },
  }),
});
