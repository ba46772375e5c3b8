/** What `submission-files` answers: its success `data` and its own fails (shared/http/contract.ts says how they are used). */
import * as z from 'zod';
import { noSuchFileVersion } from '#shared/files/failures.ts';
import { integer, object, string } from '#shared/http/answers.ts';
import { fail, gradeableNotFound, type RouteContract } from '#shared/http/contract.ts';
import { fieldFails } from '#shared/http/fields.ts';
import { noActiveVersionFiles, noGradedGradeable, notSameUser } from '#shared/submissions/failures.ts';
import { notYourSection } from '#shared/tagrading/failures.ts';

export const contract: RouteContract = {
  tag: 'Submissions',
  data: object({
    version: integer,
    files: z.array(object({ name: string, size: integer, url: string.describe('A presigned download link, valid for 5 minutes.') })),
  }),
  fails: [
    gradeableNotFound,
    fail(notSameUser),
    fail(notYourSection),
    fail(noGradedGradeable),
    fail(noSuchFileVersion),
    fail(noActiveVersionFiles),
    // Its query's typed field (a body's are listed from the definition).
    { status: 400, message: fieldFails.mustBe('version', 'a version number') },
  ],
};
