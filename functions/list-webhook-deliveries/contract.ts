/** What `list-webhook-deliveries` answers: its success `data` and its own fails (shared/http/contract.ts says how they are used). */
import * as z from 'zod';
import { components } from '#shared/http/answers.ts';
import { fail, type RouteContract } from '#shared/http/contract.ts';
import { badDeliveryState, webhookNotFound } from '#shared/webhooks/failures.ts';

const { WebhookDelivery } = components;

export const contract: RouteContract = {
  tag: 'Webhooks',
  data: z.array(WebhookDelivery).max(100).describe('The newest 100 first.'),
  fails: [fail(webhookNotFound), fail(badDeliveryState)],
};
