/**
 * Signing in with an ID token of the configured identity provider: the same token a password
 * login gives (the user's previous token stops working), for an existing user, or for a new one
 * created with it when the deployment says so. A refused ID token writes nothing.
 */
import { signInSettings } from '#shared/config.ts';
import { auditEntry } from '#shared/data/audit.ts';
import { putSession } from '#shared/data/sessions.ts';
import { failedConditions, transactWrite } from '#shared/data/transactions.ts';
import { getUser, newUserItem, signInWithIdentity, type Identity } from '#shared/data/users.ts';
import { newUserFrom } from '#shared/users/profile.ts';
import { accountDisabled, idTokensNotTaken, linkedToAnotherIdentity, noAccountForIdToken, superuserByPasswordOnly } from './failures.ts';
import { signToken } from './jwt.ts';
import { verifyIdToken } from './oidc.ts';
import { identityMaySignIn, identityOf, mayUseIdToken, newUserFromClaims, userIdFromClaims } from './oidc-rules.ts';
import { newTokenClaims } from './tokens.ts';

/**
 * POST /api/token with `id_token` (and the `nonce` the client sent the provider, if any). The
 * account is linked to the token's identity (issuer and `sub`) at its first sign-in through the
 * provider; afterwards only that identity signs in to it.
 */
export async function issueTokenForIdToken(idToken: string, nonce: string | undefined): Promise<string> {
  const { oidc, passwordLogin } = signInSettings();
  if (!oidc) throw idTokensNotTaken();
  const claims = await verifyIdToken(idToken, { issuer: oidc.issuer, clientId: oidc.clientId, nonce });
  const userId = userIdFromClaims(claims, oidc);
  const identity = identityOf(claims, oidc.issuer);
  for (let attempt = 1; ; attempt++) {
    const existing = await getUser(userId);
    if (!existing && !oidc.createUsers) throw noAccountForIdToken({ user_id: userId });
    if (existing?.disabled) throw accountDisabled();
    if (existing && !mayUseIdToken(existing.accessLevel, passwordLogin, oidc)) throw superuserByPasswordOnly();
    if (existing && !identityMaySignIn(existing.identity, identity)) {
      throw linkedToAnotherIdentity({ user_id: userId, subject: identity.subject.slice(0, 255) });
    }
    const token = newTokenClaims(userId, new Date(), 'oidc');
    const signed = await signToken(token);
    const items = !existing
      ? [...newAccount(userId, claims, oidc, identity), putSession(token)]
      : existing.identity
        ? [signInWithIdentity(userId, identity, true), putSession(token)]
        : [signInWithIdentity(userId, identity, false), linkedEntry(userId, userId, undefined, identity), putSession(token)];
    try {
      await transactWrite(items);
      return signed;
    } catch (error) {
      // The user was removed, disabled or linked, or created by another sign-in, meanwhile: look again.
      if (failedConditions(error).includes(0) && attempt < 3) continue;
      throw error;
    }
  }
}

/** A first sign-in's account, linked to its identity, and its audit entry (made by the user themselves), written with the session. */
function newAccount(
  userId: string,
  claims: Readonly<Record<string, unknown>>,
  rule: { readonly emailsVerified: boolean },
  identity: Identity,
) {
  const user = newUserFrom(newUserFromClaims(userId, claims, rule));
  const after = {
    first_name: user.givenName,
    last_name: user.familyName,
    email: user.email,
    level: user.accessLevel,
    identity: identity.subject,
  };
  return [newUserItem({ ...user, identity }), auditEntry({ userId }, { actor: userId, action: 'user.created', target: userId, after })];
}

/** The audit entry of linking an account to an identity (`identity`: its `sub`). */
export const linkedEntry = (actor: string, userId: string, before: Identity | undefined, after: Identity) =>
  auditEntry(
    { userId },
    {
      actor,
      action: 'user.identity-linked',
      target: userId,
      ...(before ? { before: { identity: before.subject } } : {}),
      after: { identity: after.subject },
    },
  );
