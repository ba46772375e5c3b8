import { route } from '#shared/http/routes.ts';
import { AUDIT_PAGE } from '#shared/users/limits.ts';
import { paging } from '#shared/http/parameters.ts';

export const definition = route({
  name: 'user-audit',
  method: 'GET',
  path: '/api/users/{user_id}/audit',
  access: 'superuser',
  summary: "A user account's audit trail: created, changed, passwords set, newest first, paged with page_size and cursor.",
  data: { audit: ['Query'] },
  input: () => ({ query: paging('Entries', AUDIT_PAGE) }),
});
