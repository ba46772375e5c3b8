import { stringField } from '#shared/http/fields.ts';
import type { RequestBody } from '#shared/http/types.ts';
import { blankCredentials } from './tokens.ts';

export interface LoginForm {
  readonly userId: string;
  readonly password: string;
}

/** `user_id` and `password` from any body encoding; both must be non-empty strings. */
export function loginForm(body: RequestBody): LoginForm {
  const userId = stringField(body, 'user_id', { maxLength: 256 });
  const password = stringField(body, 'password', { maxLength: 1024 });
  if (!userId || !password) throw blankCredentials();
  return { userId, password };
}

export const hasLoginFields = (body: RequestBody): boolean => body.user_id !== undefined || body.password !== undefined;
