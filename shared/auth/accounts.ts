/**
 * The account changes that involve a password: creating a user, a superuser setting a password,
 * and the caller changing their own. Each is one transaction with its audit entry, which records
 * that the password changed, never the password or its hash.
 */
import { auditEntry } from '#shared/data/audit.ts';
import { putPassword } from '#shared/data/credentials.ts';
import { deleteSession } from '#shared/data/sessions.ts';
import { failedConditions, transactWrite } from '#shared/data/transactions.ts';
import { newUserItem, userStillExists } from '#shared/data/users.ts';
import { Refusal } from '#shared/errors.ts';
import { blankPassword, noSuchUser, passwordFieldsMissing, userExists, wrongCurrentPassword } from '#shared/users/failures.ts';
import { checkPasswordStrength } from '#shared/users/password-policy.ts';
import { actorId, newUserFrom, userRecord, type Actor, type NewUserFields, type UserRecord } from '#shared/users/profile.ts';
import type { TokenClaims } from './jwt.ts';
import { generatePassword, hashGeneratedPassword, hashPassword } from './passwords.ts';
import { changeOwnPassword, wrongCredentials } from './tokens.ts';

/** A password as chosen (checked against the policy), or generated when none is given. */
async function passwordHashFor(userId: string, chosen: string | undefined): Promise<{ hash: string; generated: string | null }> {
  if (chosen !== undefined) {
    if (chosen === '') throw blankPassword();
    checkPasswordStrength(chosen, userId);
    return { hash: await hashPassword(chosen), generated: null };
  }
  const generated = generatePassword();
  return { hash: await hashGeneratedPassword(generated), generated };
}

/** A new account; `password` holds the generated password (shown this once), null when one was given. */
export async function createAccount(
  actor: Actor,
  fields: NewUserFields & { readonly password?: string | undefined },
): Promise<UserRecord & { password: string | null }> {
  const user = newUserFrom(fields);
  const { hash, generated } = await passwordHashFor(user.userId, fields.password);
  const record = userRecord(user);
  const after = { first_name: record.first_name, last_name: record.last_name, email: record.email, level: record.level };
  try {
    await transactWrite([
      newUserItem(user),
      putPassword(user.userId, hash),
      auditEntry({ userId: user.userId }, { actor: actorId(actor), action: 'user.created', target: user.userId, after }),
    ]);
  } catch (error) {
    if (failedConditions(error).includes(0)) throw userExists({ user_id: user.userId });
    throw error;
  }
  return { ...record, password: generated };
}

/** A superuser sets a user's password (generated when none is given): their token stops working. */
export async function resetPassword(
  actor: Actor,
  userId: string,
  chosen: string | undefined,
): Promise<{ user_id: string; password: string | null }> {
  const { hash, generated } = await passwordHashFor(userId, chosen);
  try {
    await transactWrite([
      userStillExists(userId),
      putPassword(userId, hash),
      deleteSession(userId),
      auditEntry({ userId }, { actor: actorId(actor), action: 'user.password-set', target: userId }),
    ]);
  } catch (error) {
    if (failedConditions(error).includes(0)) throw noSuchUser({ user_id: userId });
    throw error;
  }
  return { user_id: userId, password: generated };
}

/**
 * The caller changes their own password: the new one must pass the policy; a wrong current one
 * counts as a failed login. Their token stops working; the answer is the new one.
 */
export async function changeMyPassword(
  claims: Pick<TokenClaims, 'userId' | 'tokenId'>,
  fields: { readonly current_password?: string | undefined; readonly new_password?: string | undefined },
): Promise<{ token: string }> {
  const { current_password: current, new_password: next } = fields;
  if (!current || !next) throw passwordFieldsMissing();
  checkPasswordStrength(next, claims.userId);
  const audit = auditEntry({ userId: claims.userId }, { actor: claims.userId, action: 'user.password-changed', target: claims.userId });
  try {
    return { token: await changeOwnPassword(claims, current, next, [audit]) };
  } catch (error) {
    if (error instanceof Refusal && error.message === wrongCredentials.text()) throw wrongCurrentPassword();
    throw error;
  }
}
