import { route } from '#shared/http/routes.ts';

export const definition = route({
  name: 'delete-team',
  method: 'DELETE',
  path: '/api/{semester}/{course}/gradeable/{gradeable_id}/teams/{team_id}',
  access: 'course:instructor',
  summary: 'Delete a team that has no submission; its members are then on no team.',
  data: {
    gradeables: ['BatchGetItem'],
    teams: ['BatchGetItem', 'DeleteItem'],
    submissions: ['BatchGetItem', 'ConditionCheckItem'],
    audit: ['PutItem'],
  },
});
