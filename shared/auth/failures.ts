/** The token endpoints' fails (declared once: the code throws them, the API contract lists them). */
import { failure } from '#shared/errors.ts';

export const wrongCredentials = /* @__PURE__ */ failure('unauthenticated', 'Could not login using that user id or password.');
export const blankCredentials = /* @__PURE__ */ failure('invalid', 'Cannot leave user id or password blank.');
export const tooManyFailedLogins = /* @__PURE__ */ failure(
  'too-many-requests',
  'Too many failed logins for this user id. Try again in {seconds}.',
);
export const accountDisabled = /* @__PURE__ */ failure(
  'unauthenticated',
  'This account is disabled. Ask an administrator to enable it again.',
);
export const tokenEndedMeanwhile = /* @__PURE__ */ failure(
  'unauthenticated',
  'Your token stopped working while the password was being changed (another login, a logout or a password reset): log in again.',
);

// Signing in through the identity provider (OpenID Connect), and who may use a password.
export const idTokenRefused = /* @__PURE__ */ failure('unauthenticated', 'Could not sign in with that ID token: {reason}.');
export const launchCodeWithOthers = /* @__PURE__ */ failure('invalid', 'Send lti_code alone: not with user_id, password or id_token.');
export const idTokenWithPassword = /* @__PURE__ */ failure('invalid', 'Send either id_token, or user_id and password, not both.');
export const idTokensNotTaken = /* @__PURE__ */ failure(
  'invalid',
  'This deployment does not sign in through an identity provider: log in with user_id and password.',
);
export const noAccountForIdToken = /* @__PURE__ */ failure(
  'unauthenticated',
  'There is no account for {user_id} here. Ask an instructor or an administrator to add you, then sign in again.',
);
export const superuserByPasswordOnly = /* @__PURE__ */ failure(
  'unauthenticated',
  'Superusers log in with their password here, not through the identity provider.',
);
export const linkedToAnotherIdentity = /* @__PURE__ */ failure(
  'unauthenticated',
  'The account {user_id} is linked to another identity at the identity provider, so this one cannot sign in to it. If the account is yours (your user name there was changed, or given to someone before you), ask an administrator to link it to your identity {subject}.',
);
export const subjectMissing = /* @__PURE__ */ failure('invalid', "Give subject: the identity provider's sub for the account's owner.");
export const identityChangedMeanwhile = /* @__PURE__ */ failure(
  'conflict',
  'The identity link of {user_id} changed meanwhile; read the account and try again.',
);
export const passwordLoginOff = /* @__PURE__ */ failure(
  'unauthenticated',
  'Password login is turned off here. Sign in through your institution ({issuer}) and send its ID token as id_token; GET /api/auth says how.',
);
export const passwordLoginSuperusersOnly = /* @__PURE__ */ failure(
  'unauthenticated',
  'Only superusers log in with a password here. Sign in through your institution ({issuer}) and send its ID token as id_token; GET /api/auth says how.',
);
