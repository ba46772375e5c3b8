import { route } from '#shared/http/routes.ts';
import { list } from '#shared/http/fields.ts';

export const definition = route({
  name: 'set-team',
  method: 'PUT',
  path: '/api/{semester}/{course}/gradeable/{gradeable_id}/teams/{team_id}',
  access: 'course:instructor',
  summary:
    "Set a team's members (students of the course), creating the team when it does not exist; a student moves from a team without submissions. Never takes a team's submissions away from a member nor merges two teams' submissions.",
  data: {
    gradeables: ['BatchGetItem'],
    enrollments: ['BatchGetItem'],
    teams: ['BatchGetItem', 'PutItem', 'UpdateItem', 'DeleteItem'],
    submissions: ['BatchGetItem', 'ConditionCheckItem'],
    audit: ['PutItem'],
  },
  input: () => ({
    body: {
      members: list({
        description: "The team's members: user ids of students of the course, at most the gradeable's team_size_max.",
        items: 'user ids',
        maxItems: 100,
      }),
    },
  }),
});
