/** What `create-gradebook-export` answers: its success `data` and its own fails (shared/http/contract.ts says how they are used). */
import { components } from '#shared/http/answers.ts';
import { fail, type RouteContract } from '#shared/http/contract.ts';
import { exportGradeableNotFound, formatMissing, formatUnknown, tooManyExportGradeables } from '#shared/gradebook/failures.ts';

export const contract: RouteContract = {
  tag: 'Grading',
  data: components.GradebookExport,
  fails: [fail(formatMissing), fail(formatUnknown), fail(tooManyExportGradeables), fail(exportGradeableNotFound)],
};
