/** What `link-identity` answers: its success `data` and its own fails (shared/http/contract.ts says how they are used). */
import { identityChangedMeanwhile, idTokensNotTaken, subjectMissing } from '#shared/auth/failures.ts';
import { object, string } from '#shared/http/answers.ts';
import { fail, type RouteContract } from '#shared/http/contract.ts';
import { noSuchUser } from '#shared/users/failures.ts';

export const contract: RouteContract = {
  tag: 'Users',
  data: object({
    user_id: string,
    issuer: string.describe('The identity provider (the configured issuer).'),
    subject: string.describe("The identity's `sub` at the issuer: the only one that signs in to the account now."),
  }),
  fails: [fail(subjectMissing), fail(noSuchUser), fail(idTokensNotTaken), fail(identityChangedMeanwhile)],
};
