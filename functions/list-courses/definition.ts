import * as z from 'zod/mini';
import { route } from '#shared/http/routes.ts';
import { userIdQuery } from '#shared/http/parameters.ts';

export const definition = route({
  name: 'list-courses',
  method: 'GET',
  path: '/api/courses',
  access: 'user',
  summary: "The caller's unarchived and archived courses; superusers may pass user_id for another user's.",
  data: { enrollments: ['Query byUser'], courses: ['BatchGetItem'], terms: ['BatchGetItem'] },
  input: () => ({ query: { user_id: z.optional(userIdQuery("Superusers: another user's courses.")) } }),
});
