import { route } from '#shared/http/routes.ts';
import { required, wholeNumber } from '#shared/http/fields.ts';
import { staffUserIdQuery } from '#shared/http/parameters.ts';
import { recordVersionMissing } from '#shared/grading/failures.ts';
import * as z from 'zod/mini';

export const definition = route({
  name: 'grading-record',
  method: 'GET',
  path: '/api/{semester}/{course}/gradeable/{gradeable_id}/record',
  access: 'course:member',
  summary:
    "A graded version's grading record (the caller's own or their team's; for staff `user_id`'s, limited access graders their sections'): a JWS signed with the deployment's record key, verifiable with the keys of GET /api/records/jwks, and the SHA-256 of its result as stored now.",
  data: { gradeables: ['BatchGetItem'], teams: ['BatchGetItem'], submissions: ['BatchGetItem'], results: ['BatchGetItem'] },
  input: () => ({
    query: {
      version: required(
        wholeNumber({ description: 'The version whose grading record to read.', mustBe: 'a version number' }),
        recordVersionMissing,
      ),
      user_id: z.optional(staffUserIdQuery()),
    },
  }),
});
