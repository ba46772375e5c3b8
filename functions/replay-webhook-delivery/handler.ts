import { endpoint } from '#shared/http/endpoint.ts';
import { deliveryNotFound, deliveryReads, replayDelivery, webhookNotFound } from '#shared/webhooks/manage.ts';
import { definition } from './definition.ts';

export const handler = endpoint(definition, {
  reads: ({ params }) => deliveryReads(params),
  malformed: { webhook_id: webhookNotFound, delivery_id: deliveryNotFound },
  handle: ({ params, items }) => {
    if (!items.webhook) throw webhookNotFound(params.webhook_id);
    if (!items.delivery) throw deliveryNotFound(params.delivery_id);
    return replayDelivery(items.delivery);
  },
});
