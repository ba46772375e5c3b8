/** What `list-webhook-deliveries` answers: its success `data` and its own fails (shared/http/contract.ts says how they are used). */
import * as z from 'zod';
import { components } from '#shared/http/answers.ts';
import { fail, pageFails, type RouteContract } from '#shared/http/contract.ts';
import { badDeliveryState, webhookNotFound } from '#shared/webhooks/failures.ts';

const { WebhookDelivery } = components;

export const contract: RouteContract = {
  tag: 'Webhooks',
  data: z.array(WebhookDelivery).describe('One page of deliveries, newest first; a `Link` header names the next.'),
  fails: [fail(webhookNotFound), fail(badDeliveryState), ...pageFails],
  successHeaders: ['Link'],
};
