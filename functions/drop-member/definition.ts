import { route } from '#shared/http/routes.ts';

export const definition = route({
  name: 'drop-member',
  method: 'DELETE',
  path: '/api/{semester}/{course}/users/{user_id}',
  access: 'course:instructor-or-superuser',
  summary:
    'Drop a member: a student stays, with no sections, and keeps their submissions and grades; staff lose their role. The last instructor cannot be dropped.',
  data: {
    users: ['BatchGetItem'],
    enrollments: ['BatchGetItem', 'Query', 'PutItem', 'DeleteItem', 'ConditionCheckItem', 'UpdateItem'],
    accessGroups: ['DeleteItem'],
    terms: ['BatchGetItem'],
    courses: ['BatchGetItem'],
    audit: ['PutItem'],
  },
});
