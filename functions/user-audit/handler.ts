import { endpoint } from '#shared/http/endpoint.ts';
import { paged } from '#shared/http/paging.ts';
import { auditPage, auditPageRequest } from '#shared/users/audit.ts';
import { definition } from './definition.ts';

export const handler = endpoint(definition, {
  // An id no account can have (too long for a key, say) has no trail.
  malformed: {
    user_id: (_, { query }) => {
      auditPageRequest(query);
      return [];
    },
  },
  handle: async ({ params, query, url }) => {
    const { items, next } = await auditPage({ userId: params.user_id }, query);
    return paged(url, items, next);
  },
});
