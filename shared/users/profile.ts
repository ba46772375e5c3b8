/**
 * The rules of user accounts, as pure functions: what a new user must give, who may change which
 * profile field, and what an account looks like in answers and in the audit trail.
 */
import { accessDenied } from '#shared/errors.ts';
import { COMMAND_LINE_ACTOR } from '#shared/ids.ts';
import { isAccessLevel, isSuperuser, isValidUserId, type AccessLevel, type User } from './user.ts';
import { accountFieldProblem } from './account-fields.ts';
import {
  badAccountField,
  blankField,
  fieldNotChangeable,
  invalidEmail,
  invalidLevel,
  invalidUserId,
  nameTooLong,
  notABoolean,
  notAString,
  nothingToChange,
  onlyOwnNames,
  ownDisabled,
  ownLevel,
} from './failures.ts';
import { MAX_EMAIL_LENGTH, MAX_NAME_LENGTH } from './limits.ts';

export { MAX_EMAIL_LENGTH, MAX_NAME_LENGTH };
const EMAIL = /^[^\s@]+@[^\s@]+$/;

/** An account as the API answers it (field names as the users list's). */
export interface UserRecord {
  readonly user_id: string;
  readonly first_name: string;
  readonly last_name: string;
  readonly email: string;
  readonly level: AccessLevel;
  /** A disabled account gets no token until a superuser enables it again. */
  readonly disabled: boolean;
}

export const userRecord = (user: User): UserRecord => ({
  user_id: user.userId,
  first_name: user.givenName,
  last_name: user.familyName,
  email: user.email,
  level: user.accessLevel,
  disabled: user.disabled === true,
});

/** Who changes an account: a caller, or the operator's command line (with a superuser's rights). */
export type Actor = Pick<User, 'userId' | 'accessLevel'> | typeof COMMAND_LINE_ACTOR;

export const actorId = (actor: Actor): string => (actor === COMMAND_LINE_ACTOR ? COMMAND_LINE_ACTOR : actor.userId);
const actsAsSuperuser = (actor: Actor): boolean => actor === COMMAND_LINE_ACTOR || isSuperuser(actor);

/** Superusers read every account; anyone else only their own. */
export function checkMayRead(actor: Actor, userId: string): void {
  if (!actsAsSuperuser(actor) && actor !== COMMAND_LINE_ACTOR && actor.userId !== userId) throw accessDenied();
}

/** A new account's fields, as the route's input reads them (the four it requires present). */
export interface NewUserFields {
  readonly user_id: string;
  readonly first_name: string;
  readonly last_name: string;
  readonly email: string;
  readonly level?: string | undefined;
}

/** A new account's profile from its fields; the first problem is thrown. */
export function newUserFrom(fields: NewUserFields): User {
  const { user_id: userId, first_name: first, last_name: last, email } = fields;
  if (!isValidUserId(userId)) throw invalidUserId({ user_id: userId });
  return {
    userId,
    givenName: checkName('first_name', first),
    familyName: checkName('last_name', last),
    email: checkEmail(email),
    accessLevel: checkLevel(fields.level ?? 'user'),
  };
}

function checkName(field: 'first_name' | 'last_name', value: string): string {
  const name = value.trim();
  if (!name) throw blankField({ field });
  if (name.length > MAX_NAME_LENGTH) throw nameTooLong({ field, max: MAX_NAME_LENGTH });
  return checkAccountField(field, name);
}

function checkEmail(value: string): string {
  const email = value.trim();
  if (!EMAIL.test(email) || email.length > MAX_EMAIL_LENGTH) throw invalidEmail();
  return checkAccountField('email', email);
}

/** The rule every account field is held to, wherever it is written (account-fields.ts). */
function checkAccountField(field: 'first_name' | 'last_name' | 'email', value: string): string {
  const problem = accountFieldProblem(field, value);
  if (problem) throw badAccountField({ field, problem });
  return value;
}

function checkLevel(value: string): AccessLevel {
  if (!isAccessLevel(value)) throw invalidLevel();
  return value;
}

/** The fields of a profile a change may name, and who may change each. */
const CHANGEABLE = ['first_name', 'last_name', 'email', 'level', 'disabled'] as const;
type Changeable = (typeof CHANGEABLE)[number];
const OWN = new Set<string>(['first_name', 'last_name']);

/** The fields that differ, before and after (API names): what the audit trail keeps. */
export interface ProfileDiff {
  readonly before: Partial<Record<Changeable, string | boolean>>;
  readonly after: Partial<Record<Changeable, string | boolean>>;
}

export function profileDiff(before: User, after: User): ProfileDiff {
  const [was, is] = [userRecord(before), userRecord(after)];
  // A change that does not name `disabled` leaves it as it is (shared/data/users.ts changeProfile).
  const changed = CHANGEABLE.filter((field) => (field !== 'disabled' || after.disabled !== undefined) && was[field] !== is[field]);
  return {
    before: Object.fromEntries(changed.map((field) => [field, was[field]])),
    after: Object.fromEntries(changed.map((field) => [field, is[field]])),
  };
}

export const isEmptyDiff = (diff: ProfileDiff): boolean => Object.keys(diff.after).length === 0;

/**
 * The profile a change asks for, from the request body as sent (every field it names, so nothing
 * is silently left out): superusers may change names, e-mail, level and whether the account is
 * disabled (not their own level, nor disable themselves); users only their own names. A field that is no profile field, or one the actor may not change,
 * is refused, whatever its value.
 */
export function changedProfile(actor: Actor, target: User, body: Readonly<Record<string, unknown>>): User {
  if (!actsAsSuperuser(actor) && actor !== COMMAND_LINE_ACTOR && actor.userId !== target.userId) throw accessDenied();
  const fields = Object.keys(body);
  for (const field of fields) {
    if (!(CHANGEABLE as readonly string[]).includes(field)) throw fieldNotChangeable({ field });
  }
  for (const field of fields) {
    if (!actsAsSuperuser(actor) && !OWN.has(field)) throw onlyOwnNames({ field });
    if (field === 'disabled') {
      if (typeof body[field] !== 'boolean') throw notABoolean({ field });
    } else if (typeof body[field] !== 'string') throw notAString({ field });
  }
  if (fields.length === 0) throw nothingToChange();
  const value = (field: Exclude<Changeable, 'disabled'>) => body[field] as string | undefined;
  const first = value('first_name');
  const last = value('last_name');
  const email = value('email');
  const level = value('level');
  const disabled = body.disabled as boolean | undefined;
  // `disabled` is written only when the body names it, so a change of names cannot undo a concurrent enabling.
  const { disabled: _current, ...profile } = target;
  const changed: User = {
    ...profile,
    ...(first !== undefined ? { givenName: checkName('first_name', first) } : {}),
    ...(last !== undefined ? { familyName: checkName('last_name', last) } : {}),
    ...(email !== undefined ? { email: checkEmail(email) } : {}),
    ...(level !== undefined ? { accessLevel: checkLevel(level) } : {}),
    ...(disabled !== undefined ? { disabled } : {}),
  };
  const own = actor !== COMMAND_LINE_ACTOR && actor.userId === target.userId;
  if (own && changed.accessLevel !== target.accessLevel) throw ownLevel();
  if (own && changed.disabled === true) throw ownDisabled();
  return changed;
}
