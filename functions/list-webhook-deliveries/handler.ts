import { endpoint } from '#shared/http/endpoint.ts';
import { listDeliveries, webhookNotFound, webhookReads } from '#shared/webhooks/manage.ts';
import { definition } from './definition.ts';

export const handler = endpoint(definition, {
  reads: ({ params }) => ({ webhook: webhookReads(params).webhook }),
  handle: ({ course, params, query, items }) => {
    if (!items.webhook) throw webhookNotFound(params.webhook_id);
    return listDeliveries(course, items.webhook.webhookId, query.state);
  },
});
