import { endpoint } from '#shared/http/endpoint.ts';
import { paged } from '#shared/http/paging.ts';
import { listSummaries, summaryEntriesAsked } from '#shared/summaries/list.ts';

export const handler = endpoint('list-summaries', {
  alongside: ({ params, query }) => summaryEntriesAsked({ term: params.semester, course: params.course }, query),
  handle: async ({ course, query, event, alongside }) => {
    const page = await listSummaries(course, query, alongside);
    return paged(event, page, page.next_cursor);
  },
});
