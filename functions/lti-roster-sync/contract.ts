/** What `lti-roster-sync` answers: its success `data` and its own fails (shared/http/contract.ts says how they are used). */
import * as z from 'zod';
import { rosterNotLinked, rosterRefused, rosterTooLarge, rosterUnavailable } from '#shared/lti/failures.ts';
import { boolean, count, integer, object, string } from '#shared/http/answers.ts';
import { fail, type RouteContract } from '#shared/http/contract.ts';

export const contract: RouteContract = {
  tag: 'LTI',
  data: object({
    dry_run: boolean,
    created: count('Members new to the course.'),
    updated: count('Members whose role changed, or dropped students the LMS lists again.'),
    unchanged: count('Members the roster leaves as they are.'),
    dropped: count('Students dropped: the LMS lists them as Inactive or Deleted, or not at all.'),
    rejected: z
      .array(object({ line: integer, reason: string }))
      .describe(
        'Each LMS member not taken, by their place in the roster (1 the first), with why (0: a student not in the roster whose drop could not be applied).',
      ),
    new_accounts: z
      .array(object({ user_id: string, password: string.nullable() }))
      .describe(
        'The accounts created (the registration creates accounts), each with its generated password shown this once (null in a dry run).',
      ),
  }),
  fails: [fail(rosterNotLinked), fail(rosterUnavailable), fail(rosterRefused), fail(rosterTooLarge)],
};
