/**
 * What a password chosen by a person must be: at least MIN_PASSWORD_LENGTH characters, not the
 * user id, and not one of the most common passwords (common-passwords.json: the entries of a
 * frequency-ranked list of leaked passwords that the length rule does not already refuse, lower-cased).
 * Generated passwords are random and need none of this.
 */
import commonPasswords from './common-passwords.json' with { type: 'json' };
import type { Refusal } from '#shared/errors.ts';
import { passwordIsUserId, passwordTooCommon, passwordTooShort } from './failures.ts';
import { MIN_PASSWORD_LENGTH } from './limits.ts';

export { MIN_PASSWORD_LENGTH };

/** Compared case-insensitively, in one Unicode form: `Password123` is as guessable as `password123`. */
const canonical = (text: string) => text.normalize('NFC').toLowerCase();

const common = new Set<string>(commonPasswords.map(canonical));

export const isCommonPassword = (password: string): boolean => common.has(canonical(password));

/** Why a password may not be chosen, or undefined when it may. Characters are counted as code points. */
export function weakPasswordProblem(password: string, userId: string): Refusal | undefined {
  if ([...password.normalize('NFC')].length < MIN_PASSWORD_LENGTH) return passwordTooShort({ min: MIN_PASSWORD_LENGTH });
  if (canonical(password) === canonical(userId)) return passwordIsUserId();
  if (isCommonPassword(password)) return passwordTooCommon();
  return undefined;
}

/** Throws the first reason the password may not be chosen. */
export function checkPasswordStrength(password: string, userId: string): void {
  const problem = weakPasswordProblem(password, userId);
  if (problem) throw problem;
}
