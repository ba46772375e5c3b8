/** What `list-terms` answers: its success `data` and its own fails (shared/http/contract.ts says how they are used). */
import * as z from 'zod';
import { components } from '#shared/http/answers.ts';
import type { RouteContract } from '#shared/http/contract.ts';

const { Term } = components;

export const contract: RouteContract = {
  tag: 'Courses',
  data: z.array(Term).describe('Newest first: by start date, then term id, both descending.'),
  fails: [],
};
