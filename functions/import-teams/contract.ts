/** What `import-teams` answers: its success `data` and its own fails (shared/http/contract.ts says how they are used). */
import * as z from 'zod';
import { notTeamGradeable, teamListHeader, teamListMissing, teamListTooLong, teamListUnreadable } from '#shared/courses/failures.ts';
import { boolean, count, integer, object, string } from '#shared/http/answers.ts';
import { fail, gradeableNotFound, type RouteContract } from '#shared/http/contract.ts';

export const contract: RouteContract = {
  tag: 'Courses',
  data: object({
    dry_run: boolean,
    created: count('Teams new to the gradeable.'),
    updated: count('Teams whose members changed.'),
    unchanged: count('Teams that already had exactly these members (not written).'),
    rejected: z
      .array(object({ line: integer, reason: string }))
      .describe("Each line not imported, by line number, with why: a bad row, or each row of a team refused (the team's reason)."),
  }),
  fails: [
    gradeableNotFound,
    fail(notTeamGradeable),
    fail(teamListMissing),
    fail(teamListUnreadable),
    fail(teamListHeader),
    fail(teamListTooLong),
  ],
};
