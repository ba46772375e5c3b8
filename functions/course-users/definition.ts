import { route } from '#shared/http/routes.ts';
import { paging } from '#shared/http/parameters.ts';

export const definition = route({
  name: 'course-users',
  method: 'GET',
  path: '/api/{semester}/{course}/users',
  aliases: ['/api/courses/{semester}/{course}/users'],
  access: 'course:instructor-or-group-staff',
  summary:
    'Everyone in the course: the whole list by default, paged with page_size and cursor when asked (or when too big for one answer).',
  data: { enrollments: ['Query'], users: ['BatchGetItem'] },
  input: () => ({ query: paging('Users', 'whole') }),
});
