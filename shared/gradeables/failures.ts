import { ApiFailure, notFound } from '#shared/http/failures.ts';

export const gradeableNotFound = () => notFound('Gradeable does not exist');
export const gradeableNotSpecified = () => new ApiFailure('Did not specify gradeable', 400);
