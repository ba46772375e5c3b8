import * as z from 'zod/mini';
import { route } from '#shared/http/routes.ts';
import { text } from '#shared/http/fields.ts';

export const definition = route({
  name: 'link-lti-context',
  method: 'POST',
  path: '/api/{semester}/{course}/lti/link',
  access: 'course:instructor',
  summary:
    "Link the LMS course of the caller's launch (an instructor's launch session from an LMS course not linked yet) to this course: launches from it then go to this course, enrolling newcomers with the role the LMS gives. Keeps the platform's roster and grade service endpoints; audited. An LMS course is linked to one course only.",
  // The caller's launch session (its context and endpoints) with the token check; the link, the course's entry and the audit entry in one transaction.
  // A link taking scores is counted on the course, in the same transaction.
  data: { sessions: ['BatchGetItem'], lti: ['PutItem', 'BatchGetItem'], courses: ['UpdateItem'], audit: ['PutItem'] },
  input: () => ({
    body: {
      section: z.optional(text(64, { description: 'The registration section students the link enrols are given (none: no section).' })),
    },
  }),
});
