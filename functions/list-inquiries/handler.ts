import { endpoint } from '#shared/http/endpoint.ts';
import { paged } from '#shared/http/paging.ts';
import { listInquiries } from '#shared/inquiries/inquiries.ts';
import { definition } from './definition.ts';

export const handler = endpoint(definition, {
  handle: async ({ course, enrollment, query, url }) => {
    const { items, next } = await listInquiries(course, enrollment, query);
    return paged(url, items, next);
  },
});
