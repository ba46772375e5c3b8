/** What `list-gradeables` answers: its success `data` and its own fails (shared/http/contract.ts says how they are used). */
import * as z from 'zod';
import { components, string } from '#shared/http/answers.ts';
import type { RouteContract } from '#shared/http/contract.ts';

const { GradeableListing } = components;

export const contract: RouteContract = {
  tag: 'Gradeables',
  data: z.record(string, GradeableListing).describe('Keyed by gradeable id.'),
  fails: [],
};
