/** What `list-courses` answers: its success `data` and its own fails (shared/http/contract.ts says how they are used). */
import * as z from 'zod';
import { accessDenied } from '#shared/errors.ts';
import { components, object } from '#shared/http/answers.ts';
import { fail, type RouteContract } from '#shared/http/contract.ts';

const { Course } = components;

export const contract: RouteContract = {
  tag: 'Users',
  data: object({ unarchived_courses: z.array(Course), archived_courses: z.array(Course) }),
  fails: [fail(accessDenied)],
};
