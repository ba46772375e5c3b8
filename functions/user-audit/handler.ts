import { endpoint } from '#shared/http/endpoint.ts';
import { paged } from '#shared/http/paging.ts';
import { auditPage } from '#shared/users/audit.ts';
import { definition } from './definition.ts';

export const handler = endpoint(definition, {
  handle: async ({ params, query, event }) => {
    const { items, next } = await auditPage({ userId: params.user_id }, query);
    return paged(event, items, next);
  },
});
