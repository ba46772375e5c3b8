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
    method: z.enum(['password', 'oidc']).describe('How the token was obtained: a password login, or an ID token of the identity provider.'),
  }),
  fails: [],
};
