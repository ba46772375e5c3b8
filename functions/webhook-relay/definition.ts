import { worker } from '#shared/http/routes.ts';

/** What the outbox relay does (shared/webhooks/relay.ts): queues the webhook messages the outbox still holds. */
export const definition = worker({
  name: 'webhook-relay',
  summary: 'Every minute: puts the webhook messages still in the outbox (the queue refused them when recorded) on the webhook queue',
  data: { webhookOutbox: ['Scan', 'DeleteItem'] },
  events: 'publish',
});
