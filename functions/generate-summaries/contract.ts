/** What `generate-summaries` answers: its success `data` and its own fails (shared/http/contract.ts says how they are used). */
import * as z from 'zod';
import { components, dateTime, integer, object, string } from '#shared/http/answers.ts';
import type { RouteContract } from '#shared/http/contract.ts';

const { SummariesJob } = components;

export const contract: RouteContract = {
  tag: 'Summaries',
  data: z.union([
    object({ course: string, summaries: integer, generated_at: dateTime, generation: string }).describe(
      'A course below SUMMARIES_JOB_MIN_USERS members: generated in the request.',
    ),
    SummariesJob,
  ]),
  fails: [],
};
