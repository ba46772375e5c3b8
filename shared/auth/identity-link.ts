/**
 * A superuser links an account to an identity at the identity provider: the owner whose user name
 * there was renamed or reused, and who is refused as "linked to another identity", gets their
 * account back. Audited, and written only while the link is still the one read.
 */
import { signInSettings } from '#shared/config.ts';
import { failedConditions, transactWrite } from '#shared/data/transactions.ts';
import { getUser, relinkIdentity } from '#shared/data/users.ts';
import type { Refusal } from '#shared/errors.ts';
import { noSuchUser } from '#shared/users/failures.ts';
import { actorId, type Actor } from '#shared/users/profile.ts';
import { identityChangedMeanwhile, idTokensNotTaken } from './failures.ts';
import { linkedEntry } from './oidc-login.ts';
import { identityMaySignIn } from './oidc-rules.ts';

/** How often a link that changed between the read and the write is read and written again. */
const ATTEMPTS = 3;

/** What linking an identity to an id no account can have answers: as for an unknown account. */
export const noAccountToLink = (userId: string): Refusal => (signInSettings().oidc ? noSuchUser({ user_id: userId }) : idTokensNotTaken());

/** PUT /api/users/{user_id}/identity: the account is linked to `subject` at the configured issuer. */
export async function linkIdentity(
  actor: Actor,
  userId: string,
  subject: string,
): Promise<{ user_id: string; issuer: string; subject: string }> {
  const { oidc } = signInSettings();
  if (!oidc) throw idTokensNotTaken();
  const identity = { issuer: oidc.issuer, subject };
  const answer = { user_id: userId, ...identity };
  for (let attempt = 1; ; attempt++) {
    const user = await getUser(userId);
    if (!user) throw noSuchUser({ user_id: userId });
    if (user.identity && identityMaySignIn(user.identity, identity)) return answer;
    try {
      await transactWrite([relinkIdentity(userId, identity, user.identity), linkedEntry(actorId(actor), userId, user.identity, identity)]);
      return answer;
    } catch (error) {
      // A sign-in linked it, or another superuser relinked it, since the read: apply to the link as it is now.
      if (!failedConditions(error).includes(0)) throw error;
      if (attempt >= ATTEMPTS) throw identityChangedMeanwhile({ user_id: userId });
    }
  }
}
