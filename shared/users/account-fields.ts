/**
 * The one rule for an account's names and e-mail address, wherever they are written: the users
 * routes, the roster and class lists, a first sign-in through the identity provider, the command
 * line.
 */
import { MAX_EMAIL_LENGTH, MAX_NAME_LENGTH } from './limits.ts';

const EMAIL = /^[^\s@]+@[^\s@]+$/;

/**
 * A cell a spreadsheet would run as a formula when the roster is exported and opened: `=`, `+`,
 * `-`, `@`, or a tab or carriage return first. Such values are refused rather than altered, so
 * that a stored name is always the name as sent; no real name or address starts that way.
 */
export const FORMULA_START = /^[=+\-@\t\r]/;

/** What is wrong with a name or e-mail value (undefined: nothing). */
export function accountFieldProblem(field: 'first_name' | 'last_name' | 'email', value: string): string | undefined {
  const max = field === 'email' ? MAX_EMAIL_LENGTH : MAX_NAME_LENGTH;
  if (value === '') return 'is required';
  if (value.length > max) return `must be at most ${max} characters long`;
  if (FORMULA_START.test(value)) return `starts with "${value.charAt(0).replace(/[\t\r]/, ' ')}", which spreadsheets run as a formula`;
  // eslint-disable-next-line no-control-regex -- control characters are what is refused
  if (/[\u0000-\u001f\u007f]/.test(value)) return 'must not hold control characters';
  if (field === 'email' && !EMAIL.test(value)) return 'must be an e-mail address';
  return undefined;
}
