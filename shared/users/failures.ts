/** The fails of the user accounts routes (declared once: the code throws them, the API contract lists them). */
import { ECHOED_LENGTH, failure } from '#shared/errors.ts';

export const userFieldsMissing = /* @__PURE__ */ failure('invalid', 'Give user_id, first_name, last_name and email.');
export const invalidUserId = /* @__PURE__ */ failure('invalid', 'Invalid user id "{user_id}".', { user_id: 80 });
export const blankField = /* @__PURE__ */ failure('invalid', 'The field {field} cannot be blank.');
export const nameTooLong = /* @__PURE__ */ failure('invalid', 'The field {field} must be at most {max} characters long.');
export const badAccountField = /* @__PURE__ */ failure('invalid', 'The field {field} {problem}.');
export const invalidEmail = /* @__PURE__ */ failure('invalid', 'Invalid e-mail address.');
export const invalidLevel = /* @__PURE__ */ failure('invalid', 'The level must be one of user, faculty, superuser.');
export const userExists = /* @__PURE__ */ failure('conflict', 'User {user_id} already exists.');
export const accountChangedMeanwhile = /* @__PURE__ */ failure(
  'conflict',
  'The account {user_id} changed meanwhile; read it and try again.',
);
export const noSuchUser = /* @__PURE__ */ failure('not-found', 'No user {user_id}.', { user_id: 80 });
export const nothingToChange = /* @__PURE__ */ failure('invalid', 'Give at least one of first_name, last_name, email, level, disabled.');
export const fieldNotChangeable = /* @__PURE__ */ failure('invalid', 'The field {field} cannot be changed here.', { field: ECHOED_LENGTH });
export const onlyOwnNames = /* @__PURE__ */ failure(
  'forbidden',
  'You may change only your own first_name and last_name; {field} is changed by a superuser.',
);
export const ownDisabled = /* @__PURE__ */ failure('forbidden', 'Superusers cannot disable their own account; another superuser can.');
export const ownLevel = /* @__PURE__ */ failure('forbidden', 'Superusers cannot change their own level; another superuser can.');
export const passwordFieldsMissing = /* @__PURE__ */ failure('invalid', 'Give current_password and new_password.');
export const wrongCurrentPassword = /* @__PURE__ */ failure('forbidden', 'The current password is not right.');
export const passwordTooShort = /* @__PURE__ */ failure('invalid', 'The password must be at least {min} characters long.');
export const passwordIsUserId = /* @__PURE__ */ failure('invalid', 'The password cannot be the user id.');
export const passwordTooCommon = /* @__PURE__ */ failure('invalid', 'The password is one of the most common passwords; choose another.');
export const blankPassword = /* @__PURE__ */ failure('invalid', 'The password cannot be blank.');
export const notAString = /* @__PURE__ */ failure('invalid', 'The field {field} must be a string.');
export const notABoolean = /* @__PURE__ */ failure('invalid', 'The field {field} must be true or false.');
