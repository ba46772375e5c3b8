import { route } from '#shared/http/routes.ts';

export const definition = route({
  name: 'replay-webhook-delivery',
  method: 'POST',
  path: '/api/{semester}/{course}/webhooks/{webhook_id}/deliveries/{delivery_id}/replay',
  access: 'course:instructor',
  summary: 'Send a finished delivery (failed after its last retry, or delivered) again, with a fresh round of retries.',
  // The new round's first attempt is written to the outbox with the restart, and removed once queued.
  data: { webhooks: ['BatchGetItem'], webhookDeliveries: ['BatchGetItem', 'UpdateItem'], webhookOutbox: ['PutItem', 'DeleteItem'] },
  events: 'publish',
});
