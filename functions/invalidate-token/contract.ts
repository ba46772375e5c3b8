/** What `invalidate-token` answers: its success `data` and its own fails (shared/http/contract.ts says how they are used). */
import * as z from 'zod';
import {
  blankCredentials,
  passwordLoginOff,
  passwordLoginSuperusersOnly,
  tooManyFailedLogins,
  wrongCredentials,
} from '#shared/auth/failures.ts';
import { fail, type RouteContract } from '#shared/http/contract.ts';

export const contract: RouteContract = {
  tag: 'Tokens',
  data: z.null(),
  fails: [
    fail(blankCredentials),
    fail(wrongCredentials),
    fail(tooManyFailedLogins),
    fail(passwordLoginOff),
    fail(passwordLoginSuperusersOnly),
  ],
};
