import { describe, expect, it } from 'vitest';
import commonPasswords from '#shared/users/common-passwords.json' with { type: 'json' };
import { newestFirst } from '#shared/courses/terms.ts';
import { MIN_PASSWORD_LENGTH, isCommonPassword, weakPasswordProblem } from '#shared/users/password-policy.ts';
import { changedProfile, checkMayRead, newUserFrom, profileDiff, type Actor } from '#shared/users/profile.ts';
import type { User } from '#shared/users/user.ts';
import { COMMAND_LINE_ACTOR } from '#shared/ids.ts';
import { parseInput } from '#functions/definitions.ts';

const student: User = { userId: 'sam', givenName: 'Sam', familyName: 'Student', email: 'sam@example.edu', accessLevel: 'user' };
const root: Actor = { userId: 'root', accessLevel: 'superuser' };
const faculty: Actor = { userId: 'prof', accessLevel: 'faculty' };
const problem = (password: string, userId = 'someone') => weakPasswordProblem(password, userId)?.message;
const refusal = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    return (error as Error).message;
  }
  return undefined;
};

describe('password policy', () => {
  it('refuses passwords shorter than 10 characters, counted as characters, not bytes', () => {
    expect(problem('123456789')).toBe('The password must be at least 10 characters long.');
    expect(problem('ääääääääää')).toBeUndefined();
    expect(problem('💥💥💥💥💥')).toBe('The password must be at least 10 characters long.');
  });

  it('refuses the user id, in any case', () => {
    expect(problem('Long.User-Id', 'long.user-id')).toBe('The password cannot be the user id.');
  });

  it('refuses common passwords in any case, and takes an uncommon one', () => {
    expect(problem('Password123')).toBe('The password is one of the most common passwords; choose another.');
    expect(problem('1qaz2wsx3edc')).toBe('The password is one of the most common passwords; choose another.');
    expect(problem('correct horse battery staple')).toBeUndefined();
  });

  it('ships a list of common passwords that the length rule alone does not refuse', () => {
    expect(commonPasswords.length).toBeGreaterThan(1000);
    expect(commonPasswords.every((password) => [...password].length >= MIN_PASSWORD_LENGTH)).toBe(true);
    expect(commonPasswords.every((password) => password === password.toLowerCase())).toBe(true);
    expect(isCommonPassword('QWERTYUIOP')).toBe(true);
  });
});

describe('new users', () => {
  it('trims names and e-mail; level user by default', () => {
    expect(newUserFrom({ user_id: 'n1', first_name: ' Nora ', last_name: 'New ', email: ' n@x.y ' })).toEqual({
      userId: 'n1',
      givenName: 'Nora',
      familyName: 'New',
      email: 'n@x.y',
      accessLevel: 'user',
    });
  });

  it('refuses missing fields first, then each bad one', () => {
    // Missing fields are the route's input's to refuse, before any field is checked.
    expect(refusal(() => parseInput('create-user', { body: { user_id: '../x' } }))).toBe('Give user_id, first_name, last_name and email.');
    const base = { user_id: 'n1', first_name: 'A', last_name: 'B', email: 'a@b.c' };
    expect(refusal(() => newUserFrom({ ...base, user_id: 'a b' }))).toBe('Invalid user id "a b".');
    expect(refusal(() => newUserFrom({ ...base, last_name: ' ' }))).toBe('The field last_name cannot be blank.');
    expect(refusal(() => newUserFrom({ ...base, email: 'a@b c' }))).toBe('Invalid e-mail address.');
    expect(refusal(() => newUserFrom({ ...base, level: 'Superuser' }))).toBe('The level must be one of user, faculty, superuser.');
  });
});

describe('who may change what of a profile', () => {
  it('users: their own names only; anything else is refused, not ignored', () => {
    const self: Actor = { userId: 'sam', accessLevel: 'user' };
    expect(changedProfile(self, student, { first_name: 'Samuel' })).toEqual({ ...student, givenName: 'Samuel' });
    expect(refusal(() => changedProfile(self, student, { first_name: 'S', email: 'x@y.z' }))).toBe(
      'You may change only your own first_name and last_name; email is changed by a superuser.',
    );
    expect(refusal(() => changedProfile(self, student, { level: 'user' }))).toBe(
      'You may change only your own first_name and last_name; level is changed by a superuser.',
    );
    expect(refusal(() => changedProfile(self, student, { first_name: 'S', given_name: 'x' }))).toBe(
      'The field given_name cannot be changed here.',
    );
    expect(refusal(() => changedProfile(faculty, student, { first_name: 'S' }))).toBe("You don't have access to this endpoint.");
  });

  it('superusers: names, e-mail and level of anyone, except their own level; the admin command line as a superuser', () => {
    expect(changedProfile(root, student, { email: 'new@x.y', level: 'faculty' })).toEqual({
      ...student,
      email: 'new@x.y',
      accessLevel: 'faculty',
    });
    const rootUser: User = { ...student, userId: 'root', accessLevel: 'superuser' };
    expect(refusal(() => changedProfile(root, rootUser, { level: 'user' }))).toBe(
      'Superusers cannot change their own level; another superuser can.',
    );
    expect(changedProfile(root, rootUser, { level: 'superuser', first_name: 'R' }).givenName).toBe('R');
    expect(changedProfile(COMMAND_LINE_ACTOR, rootUser, { level: 'user' }).accessLevel).toBe('user');
  });

  it('disabled: superusers (and the admin command line) for anyone but themselves, a boolean, changed only when named', () => {
    expect(changedProfile(root, student, { disabled: true })).toEqual({ ...student, disabled: true });
    expect(changedProfile(COMMAND_LINE_ACTOR, { ...student, disabled: true }, { disabled: false }).disabled).toBe(false);
    const self: Actor = { userId: 'sam', accessLevel: 'user' };
    expect(refusal(() => changedProfile(self, student, { disabled: false }))).toBe(
      'You may change only your own first_name and last_name; disabled is changed by a superuser.',
    );
    const rootUser: User = { ...student, userId: 'root', accessLevel: 'superuser' };
    expect(refusal(() => changedProfile(root, rootUser, { disabled: true }))).toBe(
      'Superusers cannot disable their own account; another superuser can.',
    );
    expect(refusal(() => changedProfile(root, student, { disabled: 'yes' }))).toBe('The field disabled must be true or false.');
    // A change of names leaves `disabled` out, so it cannot undo a concurrent change of it.
    const disabled: User = { ...student, disabled: true };
    const renamed = changedProfile(root, disabled, { first_name: 'Samuel' });
    expect(renamed.disabled).toBeUndefined();
    expect(profileDiff(disabled, renamed)).toEqual({ before: { first_name: 'Sam' }, after: { first_name: 'Samuel' } });
    expect(profileDiff(student, { ...student, disabled: true })).toEqual({ before: { disabled: false }, after: { disabled: true } });
  });

  it('reading: own account, or any for superusers', () => {
    expect(refusal(() => checkMayRead(faculty, 'sam'))).toBe("You don't have access to this endpoint.");
    expect(refusal(() => checkMayRead(faculty, 'prof'))).toBeUndefined();
    expect(refusal(() => checkMayRead(root, 'sam'))).toBeUndefined();
  });

  it('the audit trail keeps only the fields that changed', () => {
    expect(profileDiff(student, { ...student, givenName: 'S', accessLevel: 'faculty' })).toEqual({
      before: { first_name: 'Sam', level: 'user' },
      after: { first_name: 'S', level: 'faculty' },
    });
    expect(profileDiff(student, student)).toEqual({ before: {}, after: {} });
  });
});

describe('terms', () => {
  it('newest first: by start date, then term id', () => {
    const term = (termId: string, startDate: string) => ({ termId, name: termId, startDate, endDate: startDate });
    const sorted = [term('f25', '2025-08-25'), term('s26b', '2026-01-12'), term('s26a', '2026-01-12'), term('f26', '2026-08-24')].sort(
      newestFirst,
    );
    expect(sorted.map((t) => t.termId)).toEqual(['f26', 's26b', 's26a', 'f25']);
  });
});
