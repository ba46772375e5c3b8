/** What `replay-webhook-delivery` answers: its success `data` and its own fails (shared/http/contract.ts says how they are used). */
import { components } from '#shared/http/answers.ts';
import { fail, type RouteContract } from '#shared/http/contract.ts';
import { deliveryNotFound, stillAttempting, webhookNotFound } from '#shared/webhooks/failures.ts';

const { WebhookDelivery } = components;

export const contract: RouteContract = {
  tag: 'Webhooks',
  data: WebhookDelivery,
  fails: [fail(webhookNotFound), fail(deliveryNotFound), fail(stillAttempting)],
};
