/** What `update-user` answers: its success `data` and its own fails (shared/http/contract.ts says how they are used). */
import * as z from 'zod';
import { accessDenied } from '#shared/errors.ts';
import { components, object, string } from '#shared/http/answers.ts';
import { fail, type RouteContract } from '#shared/http/contract.ts';
import {
  badAccountField,
  blankField,
  fieldNotChangeable,
  invalidEmail,
  invalidLevel,
  nameTooLong,
  noSuchUser,
  accountChangedMeanwhile,
  notABoolean,
  notAString,
  nothingToChange,
  onlyOwnNames,
  ownDisabled,
  ownLevel,
} from '#shared/users/failures.ts';
import { LEVEL_NAMES, MAX_EMAIL_LENGTH, MAX_NAME_LENGTH } from '#shared/users/limits.ts';

const { User } = components;

export const contract: RouteContract = {
  tag: 'Users',
  document: {
    schema: object({
      first_name: string.max(MAX_NAME_LENGTH).optional(),
      last_name: string.max(MAX_NAME_LENGTH).optional(),
      email: string.max(MAX_EMAIL_LENGTH).describe('Superusers only.').optional(),
      level: z.enum(LEVEL_NAMES).describe('Superusers only, not their own.').optional(),
      disabled: z
        .boolean()
        .describe('Superusers only, not their own account. A disabled account gets no token, and its current token stops working.')
        .optional(),
    }).meta({ minProperties: 1 }),
    description: 'The fields to change (at least one); any other field is refused.',
  },
  data: User,
  fails: [
    fail(accessDenied),
    fail(noSuchUser),
    fail(accountChangedMeanwhile),
    fail(fieldNotChangeable),
    fail(onlyOwnNames),
    fail(ownLevel),
    fail(ownDisabled),
    fail(notAString),
    fail(notABoolean),
    fail(nothingToChange),
    fail(blankField),
    fail(nameTooLong),
    fail(invalidEmail),
    fail(badAccountField),
    fail(invalidLevel),
  ],
};
