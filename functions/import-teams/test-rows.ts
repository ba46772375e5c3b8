/** What the cross-cutting tests expect of `import-teams` (test/hardening/test-rows.ts says which tests, and how). */
import { instructorOnly } from '../../test/hardening/authorization-matrix.ts';
import { COURSE_CHECK } from '../../test/infra/expected-policies.ts';
import type { WriteRouteRows } from '../../test/hardening/test-rows.ts';

export const rows: WriteRouteRows = {
  policy: [
    ...COURSE_CHECK,
    'dynamodb:BatchGetItem gradeables',
    ...['BatchGetItem', 'PutItem', 'UpdateItem', 'DeleteItem'].map((action) => `dynamodb:${action} teams`),
    // Each team's submission, as read, is a condition of its change (none: nothing submitted meanwhile).
    ...['BatchGetItem', 'ConditionCheckItem'].map((action) => `dynamodb:${action} submissions`),
    'dynamodb:PutItem audit',
  ],
  authorization: [
    {
      variation: 'a team list of one new team, dry run',
      request: (world) => ({
        params: { gradeable_id: world.teamGradeable },
        query: { dry_run: 'true' },
        body: { team_list: `team_id,user_id\n${world.unique('team')},${world.userIds.student}\n` },
      }),
      expect: instructorOnly,
    },
  ],
  fuzzedPath: (world) => ({ gradeable_id: world.teamGradeable }),
  validBody: (world) => ({ team_list: `team_id,user_id\nfuzzed,${world.userIds.student}\n` }),
};
