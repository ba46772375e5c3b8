/** What `change-password` answers: its success `data` and its own fails (shared/http/contract.ts says how they are used). */
import { accountDisabled, tokenEndedMeanwhile, tooManyFailedLogins } from '#shared/auth/failures.ts';
import { object, string } from '#shared/http/answers.ts';
import { fail, passwordFails, passwordLoginFails, type RouteContract } from '#shared/http/contract.ts';
import { passwordFieldsMissing, wrongCurrentPassword } from '#shared/users/failures.ts';

export const contract: RouteContract = {
  tag: 'Users',
  data: object({ token: string.describe('The new token (as `POST /api/token` answers); the old one no longer works.') }),
  fails: [
    fail(passwordFieldsMissing),
    ...passwordFails,
    fail(wrongCurrentPassword),
    fail(tooManyFailedLogins),
    ...passwordLoginFails,
    fail(accountDisabled),
    fail(tokenEndedMeanwhile),
  ],
};
