/** What `replace-gradeable` answers: its success `data` and its own fails (shared/http/contract.ts says how they are used). */
import { gradeableBusy, gradeableChangedSince, idMismatch, wouldStrand } from '#shared/gradeables/failures.ts';
import { components } from '#shared/http/answers.ts';
import { fail, gradeableNotFound, gradeableNotSpecified, gradeableProblems, type RouteContract } from '#shared/http/contract.ts';

const { Gradeable } = components;

export const contract: RouteContract = {
  tag: 'Gradeables',
  document: { schema: Gradeable, description: 'Gradeable JSON as download gives it (application/json only).' },
  // The gradeable as stored (with dry_run=true: as it would be), in download form.
  data: Gradeable,
  successHeaders: ['ETag'],
  fails: [
    gradeableNotFound,
    gradeableNotSpecified,
    ...gradeableProblems,
    fail(idMismatch),
    fail(gradeableChangedSince),
    fail(wouldStrand),
    fail(gradeableBusy),
  ],
};
