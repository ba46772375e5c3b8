/** What `delete-gradeable` answers: its success `data` and its own fails (shared/http/contract.ts says how they are used). */
import { deleteHasSubmissions, deleteHasTeams, gradeableBusy, gradeableChangedSince } from '#shared/gradeables/failures.ts';
import { components } from '#shared/http/answers.ts';
import { fail, gradeableNotFound, gradeableNotSpecified, type RouteContract } from '#shared/http/contract.ts';

const { Gradeable } = components;

export const contract: RouteContract = {
  tag: 'Gradeables',
  // The deleted gradeable, in download form.
  data: Gradeable,
  fails: [
    gradeableNotFound,
    gradeableNotSpecified,
    fail(deleteHasSubmissions),
    fail(deleteHasTeams),
    fail(gradeableChangedSince),
    fail(gradeableBusy),
  ],
};
