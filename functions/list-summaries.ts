import { endpoint } from '#shared/http/endpoint.ts';
import { paged } from '#shared/http/paging.ts';
import { listSummaries } from '#shared/summaries/list.ts';

export const handler = endpoint('list-summaries', {
  handle: async ({ course, query, event }) => {
    const page = await listSummaries(course, query);
    return paged(event, page, page.next_cursor);
  },
});
