import { route } from '#shared/http/routes.ts';

export const definition = route({
  name: 'list-gradeables',
  method: 'GET',
  path: '/api/{semester}/{course}/gradeables',
  access: 'course:member',
  summary:
    "The gradeables the caller may see now, keyed by id, with the caller's own repository URL (on team gradeables their team's; none while on no team).",
  data: { gradeables: ['Query'], teams: ['BatchGetItem'] },
});
