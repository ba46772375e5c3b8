import { endpoint } from '#shared/http/endpoint.ts';
import { paged } from '#shared/http/paging.ts';
import { listDeliveries, webhookNotFound, webhookReads } from '#shared/webhooks/manage.ts';
import { definition } from './definition.ts';

export const handler = endpoint(definition, {
  reads: ({ params }) => webhookReads(params),
  malformed: { webhook_id: webhookNotFound },
  handle: async ({ course, params, query, items, url }) => {
    if (!items.webhook) throw webhookNotFound(params.webhook_id);
    const { items: page, next } = await listDeliveries(course, items.webhook.webhookId, query);
    return paged(url, page, next);
  },
});
