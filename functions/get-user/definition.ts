import { route } from '#shared/http/routes.ts';

export const definition = route({
  name: 'get-user',
  method: 'GET',
  path: '/api/users/{user_id}',
  access: 'user',
  summary: 'One user account: superusers any, anyone else their own.',
  data: { users: ['GetItem'] },
});
