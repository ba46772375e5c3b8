/** What `list-inquiries` answers: its success `data` and its own fails (shared/http/contract.ts says how they are used). */
import * as z from 'zod';
import { components } from '#shared/http/answers.ts';
import { fail, pageFails, type RouteContract } from '#shared/http/contract.ts';
import { badStatusFilter } from '#shared/inquiries/failures.ts';

export const contract: RouteContract = {
  tag: 'Inquiries',
  data: z.array(components.Inquiry).describe('Newest first.'),
  fails: [fail(badStatusFilter), ...pageFails],
  successHeaders: ['Link'],
};
