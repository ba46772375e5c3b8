/** What `issue-token` answers: its success `data` and its own fails (shared/http/contract.ts says how they are used). */
import {
  accountDisabled,
  idTokenRefused,
  idTokensNotTaken,
  idTokenWithPassword,
  noAccountForIdToken,
  superuserByPasswordOnly,
  linkedToAnotherIdentity,
  launchCodeWithOthers,
} from '#shared/auth/failures.ts';
import { launchAccountDisabled, launchCodeRefused } from '#shared/lti/failures.ts';
import { object, string } from '#shared/http/answers.ts';
import { credentialFails, fail, passwordLoginFails, type RouteContract } from '#shared/http/contract.ts';

export const contract: RouteContract = {
  tag: 'Tokens',
  data: object({
    token: string.describe(
      "A JWT (HS256): send it as `Authorization: <token>` or `Authorization: Bearer <token>`. Sent the same way with a later `POST /api/token` for this user id, even once expired or replaced, it marks a known client, which others' failed logins do not lock out.",
    ),
  }),
  fails: [
    ...credentialFails,
    fail(idTokenRefused),
    fail(idTokenWithPassword),
    fail(idTokensNotTaken),
    fail(noAccountForIdToken),
    ...passwordLoginFails,
    fail(accountDisabled),
    fail(superuserByPasswordOnly),
    fail(linkedToAnotherIdentity),
    fail(launchCodeWithOthers),
    fail(launchCodeRefused),
    fail(launchAccountDisabled),
  ],
};
