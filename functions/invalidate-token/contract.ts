/** What `invalidate-token` answers: its success `data` and its own fails (shared/http/contract.ts says how they are used). */
import * as z from 'zod';
import { credentialFails, passwordLoginFails, type RouteContract } from '#shared/http/contract.ts';

export const contract: RouteContract = {
  tag: 'Tokens',
  data: z.null(),
  fails: [...credentialFails, ...passwordLoginFails],
};
