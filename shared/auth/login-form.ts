import { blankCredentials } from './tokens.ts';

export interface LoginForm {
  readonly userId: string;
  readonly password: string;
}

/** The login fields as sent (any body encoding, already strings). */
export interface LoginFields {
  readonly user_id?: string;
  readonly password?: string;
}

/** `user_id` and `password`: both must be non-empty. */
export function loginForm(fields: LoginFields): LoginForm {
  const { user_id: userId, password } = fields;
  if (!userId || !password) throw blankCredentials();
  return { userId, password };
}

export const hasLoginFields = (fields: LoginFields): boolean => fields.user_id !== undefined || fields.password !== undefined;
