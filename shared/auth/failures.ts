/** The token endpoints' fails (declared once: the code throws them, the API contract lists them). */
import { failure } from '#shared/errors.ts';

export const wrongCredentials = failure('unauthenticated', 'Could not login using that user id or password.');
export const blankCredentials = failure('invalid', 'Cannot leave user id or password blank.');
export const tooManyFailedLogins = failure('too-many-requests', 'Too many failed logins for this user id. Try again in {seconds}.');
