import { endpoint } from '#shared/http/endpoint.ts';
import { listDeliveries, webhookNotFound, webhookReads } from '#shared/webhooks/manage.ts';

export const handler = endpoint('list-webhook-deliveries', {
  reads: ({ params }) => ({ webhook: webhookReads(params).webhook }),
  handle: ({ course, params, query, items }) => {
    if (!items.webhook) throw webhookNotFound(params.webhook_id);
    return listDeliveries(course, items.webhook.webhookId, query.state);
  },
});
