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

// Grading records.
export const recordVersionMissing = /* @__PURE__ */ failure(
  'invalid',
  'The field version is required: the version whose grading record to read.',
);
export const noSuchRecordVersion = /* @__PURE__ */ failure('not-found', 'Version {version} of this submission does not exist.');
export const versionNotGraded = /* @__PURE__ */ failure(
  'not-found',
  'Version {version} has no grading record: it is {state}, and a record is made when a version is graded.',
);
export const recordNotKept = /* @__PURE__ */ failure(
  'not-found',
  'Version {version} was graded before grading records were kept: regrade it to get one.',
);
