import { endpoint } from '#shared/http/endpoint.ts';
import { paged } from '#shared/http/paging.ts';
import { listDeliveries, webhookNotFound, webhookReads } from '#shared/webhooks/manage.ts';
import { definition } from './definition.ts';

export const handler = endpoint(definition, {
  reads: ({ params }) => ({ webhook: webhookReads(params).webhook }),
  handle: async ({ course, params, query, items, event }) => {
    if (!items.webhook) throw webhookNotFound(params.webhook_id);
    const { items: page, next } = await listDeliveries(course, items.webhook.webhookId, query);
    return paged(event, page, next);
  },
});
