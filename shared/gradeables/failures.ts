import { invalidInput, notFound } from '#shared/errors.ts';

export const gradeableNotFound = () => notFound('Gradeable does not exist');
export const gradeableNotSpecified = () => invalidInput('Did not specify gradeable');
