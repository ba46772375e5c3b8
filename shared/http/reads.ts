/** Helpers for the reads a route declares with the token check (see endpoint.ts). */
import type { GradeableKey } from '#shared/ids.ts';

/** The gradeable a path names. */
export const gradeableKey = (params: {
  readonly semester: string;
  readonly course: string;
  readonly gradeable_id: string;
}): GradeableKey => ({
  term: params.semester,
  course: params.course,
  gradeableId: params.gradeable_id,
});
