/** What `create-user` answers: its success `data` and its own fails (shared/http/contract.ts says how they are used). */
import { components } from '#shared/http/answers.ts';
import { fail, generatedPassword, passwordFails, type RouteContract } from '#shared/http/contract.ts';
import {
  badAccountField,
  blankField,
  invalidEmail,
  invalidLevel,
  invalidUserId,
  nameTooLong,
  userExists,
  userFieldsMissing,
} from '#shared/users/failures.ts';

const { User } = components;

export const contract: RouteContract = {
  tag: 'Users',
  data: User.extend({ password: generatedPassword }),
  fails: [
    fail(userFieldsMissing),
    fail(invalidUserId),
    fail(blankField),
    fail(nameTooLong),
    fail(invalidEmail),
    fail(badAccountField),
    fail(invalidLevel),
    ...passwordFails,
    fail(userExists),
  ],
};
