import { failure, invalidInput, notFound } from '#shared/errors.ts';

export const gradeableNotFound = () => notFound('Gradeable does not exist');
export const gradeableNotSpecified = () => invalidInput('Did not specify gradeable');

/** The reference's answer to an unknown (or not yet open) gradeable when submitting or regrading. */
export const invalidGradeableId = failure('not-found', "Invalid gradeable id '{gradeable_id}'");
/** A version beyond a submission's highest (choosing the active version, regrading one version). */
export const noSuchVersion = failure('invalid', 'There is no version {version}: the highest is {highest_version}.');

/** Marks a download made without hidden test cases' commands and expected outputs (listing.ts's withoutHiddenTests). */
export const REDACTED_FIELD = 'hidden_test_cases_redacted';
/** An upload of such a download: it cannot grade. */
export const REDACTED_DOCUMENT =
  "This gradeable JSON was downloaded without its hidden test cases' commands and expected outputs (hidden_test_cases_redacted): upload a download made by an instructor.";
