import { worker } from '#shared/http/routes.ts';

/** What the outbox relay does (shared/webhooks/relay.ts): queues the messages the outbox still holds. */
export const definition = worker({
  name: 'webhook-relay',
  summary:
    'Every minute: puts the messages still in the outbox on their queues (webhook messages the webhook queue refused when recorded, grades for linked LMS courses)',
  data: { webhookOutbox: ['Scan', 'DeleteItem'] },
  events: 'publish',
  // Grades for the linked LMS courses are written only to the outbox: this relay queues them.
  ltiScores: 'send',
});
