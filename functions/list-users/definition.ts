import { route } from '#shared/http/routes.ts';
import { paging } from '#shared/http/parameters.ts';

export const definition = route({
  name: 'list-users',
  method: 'GET',
  path: '/api/users',
  access: 'superuser',
  summary: 'Every user account (user id, names, e-mail, level), by user id: whole by default, paged with page_size and cursor when asked.',
  data: { users: ['Scan'] },
  input: () => ({ query: paging('Users', 'whole') }),
});
