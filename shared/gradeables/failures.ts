import { ECHOED_LENGTH, failure, invalidInput, notFound } from '#shared/errors.ts';

export const gradeableNotFound = () => notFound('Gradeable does not exist');
export const gradeableNotSpecified = () => invalidInput('Did not specify gradeable');

/** The reference's answer to an unknown (or not yet open) gradeable when submitting or regrading. */
export const invalidGradeableId = /* @__PURE__ */ failure('not-found', "Invalid gradeable id '{gradeable_id}'", {
  gradeable_id: ECHOED_LENGTH,
});
/** A version beyond a submission's highest (choosing the active version, regrading one version). */
export const noSuchVersion = /* @__PURE__ */ failure('invalid', 'There is no version {version}: the highest is {highest_version}.');

/** Marks a download made without hidden test cases' commands and expected outputs (listing.ts's withoutHiddenTests). */
export const REDACTED_FIELD = 'hidden_test_cases_redacted';
/** An upload of such a download: it cannot grade. */
export const REDACTED_DOCUMENT =
  "This gradeable JSON was downloaded without its hidden test cases' commands and expected outputs (hidden_test_cases_redacted): upload a download made by an instructor.";

/** A replacement whose document names another gradeable than its path. */
export const idMismatch = /* @__PURE__ */ failure(
  'invalid',
  "The gradeable JSON's id ({document_id}) must be the id in the path ({gradeable_id}).",
);
/** If-Match named another version of the gradeable than the current one. */
export const gradeableChangedSince = /* @__PURE__ */ failure(
  'precondition-failed',
  'The gradeable was changed since it was downloaded (If-Match no longer matches its ETag): download it again and reapply your changes.',
);
/** A replacement that would strand what was submitted or graded under the gradeable's present form. */
export const wouldStrand = /* @__PURE__ */ failure(
  'conflict',
  '{field} cannot change: the gradeable has submissions or grades that the change would strand.',
);
/** Deleting a gradeable something was submitted to or graded on. */
export const deleteHasSubmissions = /* @__PURE__ */ failure(
  'conflict',
  'The gradeable cannot be deleted: it has submissions or grades (change it instead, or keep it unreleased).',
);
export const deleteHasTeams = /* @__PURE__ */ failure('conflict', 'The gradeable cannot be deleted: it has teams (delete them first).');
/** Another change of the gradeable holds it at this moment. */
export const gradeableBusy = /* @__PURE__ */ failure(
  'conflict',
  'The gradeable is being changed by another request: try again in a moment.',
);
