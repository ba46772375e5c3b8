import * as z from 'zod/mini';
import { route } from '#shared/http/routes.ts';
import { required, text, wholeNumber } from '#shared/http/fields.ts';
import { statusMissing } from '#shared/inquiries/failures.ts';

export const definition = route({
  name: 'change-inquiry-status',
  method: 'PATCH',
  path: '/api/{semester}/{course}/gradeable/{gradeable_id}/inquiries/{inquiry_id}',
  access: 'course:member',
  summary:
    "Resolve or reopen a grade inquiry: graders who may grade its student either; its student (or a member of their team) reopens it within the inquiry window. Written only while the inquiry is as read (and at revision, when sent); kept in the course's audit trail, and sent as the webhook event inquiry.resolved or inquiry.opened.",
  data: {
    gradeables: ['BatchGetItem'],
    teams: ['BatchGetItem'],
    inquiries: ['BatchGetItem', 'UpdateItem', 'PutItem', 'DeleteItem'],
    audit: ['PutItem'],
    // The inquiry.resolved or inquiry.opened event, written with the change and removed once queued.
    webhookOutbox: ['PutItem', 'DeleteItem'],
  },
  events: 'publish',
  input: () => ({
    body: {
      status: required(text(16, { description: '`resolved` or `open`.' }), statusMissing, { blankIsMissing: true }),
      revision: z.optional(
        wholeNumber({
          description: 'The revision the caller saw: refused with 409 when the inquiry changed since.',
          mustBe: 'a whole number (the inquiry’s revision)',
        }),
      ),
    },
  }),
});
