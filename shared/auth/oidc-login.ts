/**
 * Signing in with an ID token of the configured identity provider: the same token a password
 * login gives (the user's previous token stops working), for an existing user, or for a new one
 * created with it when the deployment says so. A refused ID token writes nothing.
 */
import { signInSettings } from '#shared/config.ts';
import { auditEntry } from '#shared/data/audit.ts';
import { putSession } from '#shared/data/sessions.ts';
import { failedConditions, transactWrite } from '#shared/data/transactions.ts';
import { getUser, newUserItem, userStillEnabled } from '#shared/data/users.ts';
import { newUserFrom } from '#shared/users/profile.ts';
import { accountDisabled, idTokensNotTaken, noAccountForIdToken, superuserByPasswordOnly } from './failures.ts';
import { signToken } from './jwt.ts';
import { verifyIdToken } from './oidc.ts';
import { mayUseIdToken, newUserFromClaims, userIdFromClaims } from './oidc-rules.ts';
import { newTokenClaims } from './tokens.ts';

/** POST /api/token with `id_token` (and the `nonce` the client sent the provider, if any). */
export async function issueTokenForIdToken(idToken: string, nonce: string | undefined): Promise<string> {
  const { oidc, passwordLogin } = signInSettings();
  if (!oidc) throw idTokensNotTaken();
  const claims = await verifyIdToken(idToken, { issuer: oidc.issuer, clientId: oidc.clientId, nonce });
  const userId = userIdFromClaims(claims, oidc);
  for (let attempt = 1; ; attempt++) {
    const existing = await getUser(userId);
    if (!existing && !oidc.createUsers) throw noAccountForIdToken({ user_id: userId });
    if (existing?.disabled) throw accountDisabled();
    if (existing && !mayUseIdToken(existing.accessLevel, passwordLogin, oidc)) throw superuserByPasswordOnly();
    const token = newTokenClaims(userId, new Date(), 'oidc');
    const signed = await signToken(token);
    const items = existing ? [userStillEnabled(userId), putSession(token)] : [...newAccount(userId, claims, oidc), putSession(token)];
    try {
      await transactWrite(items);
      return signed;
    } catch (error) {
      // The user was removed or disabled, or created by another sign-in, meanwhile: look again.
      if (failedConditions(error).includes(0) && attempt < 3) continue;
      throw error;
    }
  }
}

/** A first sign-in's account and its audit entry (made by the user themselves), written with the session. */
function newAccount(userId: string, claims: Readonly<Record<string, unknown>>, rule: { readonly emailsVerified: boolean }) {
  const user = newUserFrom(newUserFromClaims(userId, claims, rule));
  const after = { first_name: user.givenName, last_name: user.familyName, email: user.email, level: user.accessLevel };
  return [newUserItem(user), auditEntry({ userId }, { actor: userId, action: 'user.created', target: userId, after })];
}
