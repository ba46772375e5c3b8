import * as z from 'zod/mini';
import { teamListMissing } from '#shared/courses/failures.ts';
import { csvDocument, flag, required } from '#shared/http/fields.ts';
import { route } from '#shared/http/routes.ts';

export const definition = route({
  name: 'import-teams',
  method: 'POST',
  path: '/api/{semester}/{course}/gradeable/{gradeable_id}/teams/import',
  access: 'course:instructor',
  summary:
    "Set a team gradeable's teams from a team list (CSV: team_id, user_id, a row a member): counts of teams created, updated and unchanged, and each rejected line. Each team is set as PUT …/teams/{team_id} sets it; dry_run writes nothing.",
  data: {
    gradeables: ['BatchGetItem'],
    enrollments: ['BatchGetItem'],
    teams: ['BatchGetItem', 'PutItem', 'UpdateItem', 'DeleteItem'],
    submissions: ['BatchGetItem', 'ConditionCheckItem'],
    audit: ['PutItem'],
  },
  input: () => ({
    csv: 'team_list',
    query: {
      dry_run: z.optional(
        flag({ description: 'Report what would change, each team checked against the teams as they are; write nothing.' }),
      ),
    },
    body: {
      team_list: required(
        csvDocument({
          description:
            'The team list: a header row naming team_id and user_id (any order), then a row a member. Sent as the whole `text/csv` body, or as this multipart file field.',
        }),
        teamListMissing,
        { blankIsMissing: true },
      ),
    },
  }),
});
