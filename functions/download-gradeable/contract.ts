/** What `download-gradeable` answers: its success `data` and its own fails (shared/http/contract.ts says how they are used). */
import * as z from 'zod';
import { components } from '#shared/http/answers.ts';
import { gradeableNotFound, gradeableNotSpecified, type RouteContract } from '#shared/http/contract.ts';

const { Gradeable, RedactedGradeable } = components;

export const contract: RouteContract = {
  tag: 'Gradeables',
  data: z.union([Gradeable, RedactedGradeable]),
  fails: [gradeableNotFound, gradeableNotSpecified],
};
