/** What `token-info` answers: its success `data` and its own fails (shared/http/contract.ts says how they are used). */
import * as z from 'zod';
import { dateTime, object, string } from '#shared/http/answers.ts';
import type { RouteContract } from '#shared/http/contract.ts';

export const contract: RouteContract = {
  tag: 'Tokens',
  data: object({
    user_id: string,
    issued_at: dateTime,
    expires_at: dateTime.nullable(),
    method: z
      .enum(['password', 'oidc', 'lti'])
      .describe('How the token was obtained: a password login, an ID token of the identity provider, or an LTI launch (a launch session).'),
    launch: object({
      registration_id: string.describe('The LTI registration of the platform launched from.'),
      semester: string.nullable().describe('The course launched into; null for an instructor launching from an LMS course not linked yet.'),
      course: string.nullable(),
      gradeable_id: string.nullable().describe('The gradeable the launch opened, if it named one of the course.'),
      roles: z.array(string).describe('The course role names the launch gives (in an unlinked LMS course, the one the LMS roles map to).'),
      message_type: z.enum(['LtiResourceLinkRequest', 'LtiDeepLinkingRequest']),
    })
      .optional()
      .describe('A launch session only: what its launch opened; the session reaches only that course (or, without one, linking it).'),
  }),
  fails: [],
};
