import * as z from 'zod/mini';
import { route } from '#shared/http/routes.ts';
import { text } from '#shared/http/fields.ts';
import { paging } from '#shared/http/parameters.ts';
import { GRADEABLE_ID } from '#shared/ids.ts';
import { INQUIRY_PAGE } from '#shared/inquiries/limits.ts';

export const definition = route({
  name: 'list-inquiries',
  method: 'GET',
  path: '/api/{semester}/{course}/inquiries',
  access: 'course:member',
  summary:
    "The course's grade inquiries: with their posts, newest first, paged with page_size and cursor; students those about their own grade (or their team's when it was opened), limited access graders those of their sections, instructors and full access graders all. Filtered by status and gradeable_id.",
  data: { inquiries: ['Query'] },
  input: () => ({
    query: {
      status: z.optional(text(16, { description: '`open`, `resolved` or `all` (the default).' })),
      gradeable_id: z.optional(text(64, { description: "Only this gradeable's inquiries.", pattern: GRADEABLE_ID })),
      ...paging('Inquiries', INQUIRY_PAGE),
    },
  }),
});
