/** Reading and changing user accounts (profiles): what the users routes and the admin command line share. */
import type { Refusal } from '#shared/errors.ts';
import { auditEntry } from '#shared/data/audit.ts';
import { deleteSession } from '#shared/data/sessions.ts';
import type { TransactItem } from '#shared/data/transactions.ts';
import { changeProfile, getUser, listUsers, SourceChanged } from '#shared/data/users.ts';
import { accountChangedMeanwhile, noSuchUser } from './failures.ts';
import { actorId, changedProfile, checkMayRead, isEmptyDiff, profileDiff, userRecord, type Actor, type UserRecord } from './profile.ts';
import type { User } from './user.ts';

/** Every account, by user id. */
export const allAccounts = async (): Promise<UserRecord[]> => (await listUsers()).map(userRecord);

/** An account the actor may read (their own; superusers any). */
export async function readAccount(actor: Actor, userId: string): Promise<User> {
  checkMayRead(actor, userId);
  const user = await getUser(userId);
  if (!user) throw noSuchUser({ user_id: userId });
  return user;
}

/** What reading an id no account can have answers: as for an account that does not exist. */
export function noAccountNamed(actor: Actor, userId: string): Refusal {
  checkMayRead(actor, userId);
  return noSuchUser({ user_id: userId });
}

/** How often a change whose account changed between its read and its write is made again from a fresh read. */
const CHANGE_ATTEMPTS = 3;

/**
 * Changes a profile as the actor may (profile.ts), with its audit entry in the same write; a
 * change that changes nothing writes nothing. The write holds only while the profile is still the
 * one read: a change made meanwhile (a superuser's demotion, say) is read again and this one
 * applied over it, never undone. Answers the account as it is now.
 */
export async function changeAccount(actor: Actor, userId: string, body: Readonly<Record<string, unknown>>): Promise<UserRecord> {
  for (let attempt = 1; ; attempt++) {
    const target = await readAccount(actor, userId);
    const changed = changedProfile(actor, target, body);
    if (isEmptyDiff(profileDiff(target, changed))) return userRecord(target);
    try {
      const written = await changeProfile(changed, profileChangeEntries(actorId(actor), changed), target);
      if (!written) throw noSuchUser({ user_id: userId });
    } catch (error) {
      if (!(error instanceof SourceChanged)) throw error;
      if (attempt >= CHANGE_ATTEMPTS) throw accountChangedMeanwhile({ user_id: userId });
      continue;
    }
    return userRecord({ ...changed, disabled: changed.disabled ?? target.disabled === true });
  }
}

/**
 * The audit entry of a profile change, to go into its write: it records what the write changes,
 * from the profile as it was when the write began (nothing when that changes nothing). A change
 * that disables the account also ends its session in the same write, so its token stops working.
 */
export const profileChangeEntries =
  (actor: string, changed: User) =>
  (before: User): TransactItem[] => {
    const diff = profileDiff(before, changed);
    const { userId } = changed;
    if (isEmptyDiff(diff)) return [];
    const entry = auditEntry({ userId }, { actor, action: 'user.changed', target: userId, before: diff.before, after: diff.after });
    return diff.after.disabled === true ? [entry, deleteSession(userId)] : [entry];
  };
