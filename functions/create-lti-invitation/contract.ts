/** What `create-lti-invitation` answers: its success `data` and its own fails (shared/http/contract.ts says how they are used). */
import * as z from 'zod';
import { boolean, dateTime, object, string } from '#shared/http/answers.ts';
import { fail, type RouteContract } from '#shared/http/contract.ts';
import { badUserIdClaim } from '#shared/lti/failures.ts';

export const contract: RouteContract = {
  tag: 'LTI',
  data: object({
    url: z.url().describe("The invitation: the tool's registration URL to paste in the LMS (Canvas: LTI Registration; Moodle: Tool URL)."),
    expires_at: dateTime.describe('Until when it may be used (an hour).'),
    label: string.nullable(),
    user_id_claim: string,
    user_id_suffix: string.nullable(),
    create_users: boolean,
  }),
  fails: [fail(badUserIdClaim)],
};
