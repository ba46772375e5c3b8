import { deliveryRef, webhookRef } from '#shared/data/webhooks.ts';
import { endpoint } from '#shared/http/endpoint.ts';
import { deliveryNotFound, isDeliveryId, isWebhookId, replayDelivery, webhookNotFound } from '#shared/webhooks/manage.ts';

export const handler = endpoint('replay-webhook-delivery', {
  reads: ({ params }) => {
    const webhookId = params.webhook_id && isWebhookId(params.webhook_id) ? params.webhook_id : 'wh_none';
    const deliveryId = params.delivery_id && isDeliveryId(params.delivery_id) ? params.delivery_id : 'msg_none';
    return { webhook: webhookRef(params.semester!, params.course!, webhookId), delivery: deliveryRef(params.semester!, params.course!, webhookId, deliveryId) };
  },
  handle: ({ params, items }) => {
    if (!items.webhook) throw webhookNotFound(params.webhook_id);
    if (!items.delivery) throw deliveryNotFound(params.delivery_id);
    return replayDelivery(items.delivery);
  },
});
