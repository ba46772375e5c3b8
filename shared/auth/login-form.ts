import { idTokenWithPassword, launchCodeWithOthers, passwordLoginOff } from './failures.ts';
import { blankCredentials } from './tokens.ts';

export interface LoginForm {
  readonly userId: string;
  readonly password: string;
}

/** The login fields as sent (any body encoding, already strings). */
export interface LoginFields {
  readonly user_id?: string | undefined;
  readonly password?: string | undefined;
}

/** `user_id` and `password`: both must be non-empty. */
export function loginForm(fields: LoginFields): LoginForm {
  const { user_id: userId, password } = fields;
  if (!userId || !password) throw blankCredentials();
  return { userId, password };
}

export const hasLoginFields = (fields: LoginFields): boolean => fields.user_id !== undefined || fields.password !== undefined;

/** `POST /api/token`'s fields: a password login's, or an ID token (with the nonce the client sent its provider). */
export interface SignInFields extends LoginFields {
  readonly id_token?: string | undefined;
  readonly nonce?: string | undefined;
  readonly lti_code?: string | undefined;
}

export type SignInForm =
  | ({ readonly kind: 'password' } & LoginForm)
  | { readonly kind: 'oidc'; readonly idToken: string; readonly nonce?: string | undefined }
  | { readonly kind: 'lti'; readonly code: string };

/**
 * Which way in a `POST /api/token` asks for: an LTI launch code, an ID token, or a user id and password (refused as a
 * whole, before its fields are looked at, where passwords are off).
 */
export function signInForm(fields: SignInFields, passwordLogin: 'on' | 'superusers' | 'off', issuer: string | undefined): SignInForm {
  // A launch code is the LMS's sign-in: it does not depend on the deployment's password or identity provider settings.
  if (fields.lti_code !== undefined && fields.lti_code !== '') {
    if (hasLoginFields(fields) || fields.id_token) throw launchCodeWithOthers();
    return { kind: 'lti', code: fields.lti_code };
  }
  if (fields.id_token !== undefined && fields.id_token !== '') {
    if (hasLoginFields(fields)) throw idTokenWithPassword();
    return { kind: 'oidc', idToken: fields.id_token, nonce: fields.nonce };
  }
  if (passwordLogin === 'off') throw passwordLoginOff({ issuer: issuer ?? '' });
  return { kind: 'password', ...loginForm(fields) };
}
