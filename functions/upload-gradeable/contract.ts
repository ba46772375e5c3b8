/** What `upload-gradeable` answers: its success `data` and its own fails (shared/http/contract.ts says how they are used). */
import * as z from 'zod';
import { components, string } from '#shared/http/answers.ts';
import { gradeableProblems, type RouteContract } from '#shared/http/contract.ts';

const { Gradeable } = components;

export const contract: RouteContract = {
  tag: 'Gradeables',
  document: { schema: Gradeable, description: 'Gradeable JSON (application/json only).' },
  data: z
    .union([string.describe('The new gradeable’s id.'), Gradeable])
    .describe('The new gradeable’s id; with dry_run=true, the gradeable as it would be stored (nothing is written).'),
  fails: [...gradeableProblems, { status: 409, message: 'An error has occurred: Gradeable already exists' }],
};
