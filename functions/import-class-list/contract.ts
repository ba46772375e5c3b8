/** What `import-class-list` answers: its success `data` and its own fails (shared/http/contract.ts says how they are used). */
import * as z from 'zod';
import { classListHeader, classListMissing, classListTooLong, classListUnreadable } from '#shared/courses/failures.ts';
import { boolean, count, integer, object, string } from '#shared/http/answers.ts';
import { fail, type RouteContract } from '#shared/http/contract.ts';

export const contract: RouteContract = {
  tag: 'Courses',
  data: object({
    dry_run: boolean,
    created: count('Members new to the course.'),
    updated: count('Members whose group or registration section changed (a dropped student listed again too).'),
    unchanged: count('Members the list leaves as they are.'),
    dropped: count('Students dropped because the list lacks them (drop_missing).'),
    rejected: z
      .array(object({ line: integer, reason: string }))
      .describe('Each line not imported, by line number (0: a student drop_missing would drop), with why.'),
    new_accounts: z
      .array(object({ user_id: string, password: string.nullable() }))
      .describe('The accounts created, each with its generated password shown this once (null in a dry run).'),
  }),
  fails: [fail(classListMissing), fail(classListUnreadable), fail(classListHeader), fail(classListTooLong)],
};
