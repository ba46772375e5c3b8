import { route } from '#shared/http/routes.ts';
import { paging } from '#shared/http/parameters.ts';

export const definition = route({
  name: 'list-teams',
  method: 'GET',
  path: '/api/{semester}/{course}/gradeable/{gradeable_id}/teams',
  access: 'course:instructor',
  summary:
    "A team gradeable's teams with their members, by team id: the whole list by default, paged with page_size and cursor when asked (or when too big for one answer).",
  data: { gradeables: ['BatchGetItem'], teams: ['Query'] },
  input: () => ({ query: paging('Teams', 'whole') }),
});
