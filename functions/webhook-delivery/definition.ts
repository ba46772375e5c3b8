import { worker } from '#shared/http/routes.ts';

/** What the webhook delivery function does (shared/webhooks/deliver.ts): fans events out, records attempts. */
export const definition = worker({
  name: 'webhook-delivery',
  summary: 'Per webhook-queue message: fans an event out to the course webhooks, or makes one signed delivery attempt',
  settings: ['WEBHOOK_ALLOWED_HOSTS', 'WEBHOOK_RETRY_SCHEDULE'],
  data: {
    webhooks: ['Query', 'BatchGetItem'],
    webhookSecrets: ['BatchGetItem'],
    webhookDeliveries: ['BatchGetItem', 'PutItem', 'UpdateItem'],
  },
  // A delivery attempt that fails queues its retry on the same queue.
  events: 'publish',
});
