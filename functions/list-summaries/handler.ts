import { endpoint } from '#shared/http/endpoint.ts';
import { paged } from '#shared/http/paging.ts';
import { listSummaries, summaryEntriesAsked } from '#shared/summaries/list.ts';
import { definition } from './definition.ts';

export const handler = endpoint(definition, {
  alongside: ({ params, query }) => summaryEntriesAsked({ term: params.semester, course: params.course }, query),
  handle: async ({ course, query, url, alongside }) => {
    const page = await listSummaries(course, query, alongside);
    return paged(url, page, page.next_cursor);
  },
});
