/** What `file-uploads` answers: its success `data` and its own fails (shared/http/contract.ts says how they are used). */
import * as z from 'zod';
import { courseArchived } from '#shared/courses/failures.ts';
import { invalidGradeableId } from '#shared/gradeables/failures.ts';
import { object, string } from '#shared/http/answers.ts';
import { fail, fileFails, type RouteContract } from '#shared/http/contract.ts';

export const contract: RouteContract = {
  tag: 'Submissions',
  data: object({
    uploads: z.array(
      object({
        name: string,
        upload_id: string.describe('Submit it with POST …/files as one of `upload_ids`.'),
        url: string.describe('Where to POST the form.'),
        fields: z.record(z.string(), z.string()).describe('The form fields to send before the file (the field `file`).'),
      }),
    ),
  }),
  fails: [fail(courseArchived), fail(invalidGradeableId), ...fileFails],
};
