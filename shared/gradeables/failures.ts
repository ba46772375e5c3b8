import { failure, invalidInput, notFound } from '#shared/errors.ts';

export const gradeableNotFound = () => notFound('Gradeable does not exist');
export const gradeableNotSpecified = () => invalidInput('Did not specify gradeable');

/** The reference's answer to an unknown (or not yet open) gradeable when submitting or regrading. */
export const invalidGradeableId = failure('not-found', "Invalid gradeable id '{gradeable_id}'");
/** A version beyond a submission's highest (choosing the active version, regrading one version). */
export const noSuchVersion = failure('invalid', 'There is no version {version}: the highest is {highest_version}.');
