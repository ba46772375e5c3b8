import { route } from '#shared/http/routes.ts';
import { SUMMARIES_PAGE } from '#shared/summaries/page.ts';
import { paging } from '#shared/http/parameters.ts';

export const definition = route({
  name: 'list-summaries',
  method: 'GET',
  path: '/api/{semester}/{course}/reports/summaries',
  aliases: ['/api/courses/{semester}/{course}/reports/summaries'],
  access: 'course:instructor',
  summary: 'The grade summaries of the last generation, with its time, by user id, paged with a cursor (100 a page by default).',
  data: { summaries: ['Query'] },
  input: () => ({ query: paging('Summaries', SUMMARIES_PAGE) }),
});
