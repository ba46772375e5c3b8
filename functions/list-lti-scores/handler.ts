import { endpoint } from '#shared/http/endpoint.ts';
import { paged } from '#shared/http/paging.ts';
import { listScoreDeliveries } from '#shared/lti/score-deliveries.ts';
import { definition } from './definition.ts';

export const handler = endpoint(definition, {
  handle: async ({ course, query, url }) => {
    const { items, next } = await listScoreDeliveries(course, query);
    return paged(url, items, next);
  },
});
