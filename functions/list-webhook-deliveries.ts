import { webhookRef } from '#shared/data/webhooks.ts';
import { endpoint } from '#shared/http/endpoint.ts';
import { isWebhookId, listDeliveries, webhookNotFound } from '#shared/webhooks/manage.ts';

export const handler = endpoint('list-webhook-deliveries', {
  reads: ({ params }) => ({ webhook: webhookRef(params.semester!, params.course!, validId(params.webhook_id)) }),
  handle: ({ course, params, query, items }) => {
    if (!items.webhook) throw webhookNotFound(params.webhook_id);
    return listDeliveries(course, items.webhook.webhookId, query.state);
  },
});

/** A malformed id reads a key no webhook has, rather than reaching DynamoDB as an invalid key. */
const validId = (id: string | undefined) => (id && isWebhookId(id) ? id : 'wh_none');
