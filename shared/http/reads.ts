/** Helpers for the reads a route declares with the token check (see endpoint.ts). */
import type { CourseGradeable } from '#shared/ids.ts';

/** The gradeable a path names. */
export const courseGradeable = (params: {
  readonly semester: string;
  readonly course: string;
  readonly gradeable_id: string;
}): CourseGradeable => ({
  term: params.semester,
  course: params.course,
  gradeableId: params.gradeable_id,
});
