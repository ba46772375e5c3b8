/** Regrading's fails (declared once: the code throws them, the API contract lists them). */
import { ECHOED_LENGTH, failure } from '#shared/errors.ts';

export const regradeOnlyAutograded = /* @__PURE__ */ failure(
  'invalid',
  'Regrading only supports Electronic File gradeables: a {type} gradeable is graded by hand, never automatically.',
);
export const regradeVersionNotWhole = /* @__PURE__ */ failure('invalid', 'The field version_to_regrade must be a whole number from 1.');
export const regradeVersionNeedsUser = /* @__PURE__ */ failure(
  'invalid',
  'The field version_to_regrade needs user_id: the student whose version to regrade.',
);
export const nothingToRegrade = /* @__PURE__ */ failure('invalid', '{owner_id} has no submission to regrade.');
export const noActiveVersionToRegrade = /* @__PURE__ */ failure(
  'invalid',
  '{owner_id} has no active version to regrade (the submission is cancelled).',
);
export const regradeNotFound = /* @__PURE__ */ failure('not-found', 'No regrade {regrade_id} in this course.', {
  regrade_id: ECHOED_LENGTH,
});
