/** What `list-summaries` answers: its success `data` and its own fails (shared/http/contract.ts says how they are used). */
import * as z from 'zod';
import { components, dateTime, object, string } from '#shared/http/answers.ts';
import { fail, pageFails, type RouteContract } from '#shared/http/contract.ts';
import { summariesRegenerated } from '#shared/summaries/failures.ts';

const { Summary } = components;

export const contract: RouteContract = {
  tag: 'Summaries',
  data: object({
    generated_at: dateTime.nullable(),
    summaries: z.array(Summary).describe('One page, by user id.'),
    next_cursor: string.describe('Pass as `cursor` for the next page (also in the `Link` header); null on the last.').nullable(),
  }),
  fails: [...pageFails, fail(summariesRegenerated)],
  successHeaders: ['Link'],
};
