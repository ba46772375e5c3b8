import { route } from '#shared/http/routes.ts';

export const definition = route({
  name: 'update-user',
  method: 'PATCH',
  path: '/api/users/{user_id}',
  access: 'user',
  summary:
    'Change a user account (JSON): superusers first_name, last_name, email, level and disabled (not their own level, nor disable themselves); anyone their own first_name and last_name. Any other field is refused. Kept in the user’s audit trail.',
  data: {
    users: ['GetItem', 'UpdateItem', 'ConditionCheckItem'],
    // The profile's copies on the user's enrollments (the users and graders lists) follow it.
    enrollments: ['Query byUser', 'UpdateItem'],
    audit: ['PutItem'],
    // Disabling an account ends its session in the same write.
    sessions: ['DeleteItem'],
  },
  input: () => ({ document: true }),
});
