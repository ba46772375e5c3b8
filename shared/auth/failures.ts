/** The token endpoints' fails (declared once: the code throws them, the API contract lists them). */
import { failure } from '#shared/errors.ts';

export const wrongCredentials = /* @__PURE__ */ failure('unauthenticated', 'Could not login using that user id or password.');
export const blankCredentials = /* @__PURE__ */ failure('invalid', 'Cannot leave user id or password blank.');
export const tooManyFailedLogins = /* @__PURE__ */ failure(
  'too-many-requests',
  'Too many failed logins for this user id. Try again in {seconds}.',
);
