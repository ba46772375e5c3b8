import { route } from '#shared/http/routes.ts';
import { AUDIT_PAGE } from '#shared/users/limits.ts';
import { paging } from '#shared/http/parameters.ts';

export const definition = route({
  name: 'course-audit',
  method: 'GET',
  path: '/api/{semester}/{course}/audit',
  access: 'course:instructor',
  summary:
    "The course's audit trail: roster, teams, gradeables, settings (who, when, what before and after), newest first, paged with page_size and cursor.",
  data: { audit: ['Query'] },
  input: () => ({ query: paging('Entries', AUDIT_PAGE) }),
});
