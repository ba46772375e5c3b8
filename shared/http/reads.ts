/** Helpers for the reads a route declares with the token check (see endpoint.ts). */
import { pathGradeableId } from '#shared/gradeables/gradeable.ts';
import type { GradeableKey } from '#shared/ids.ts';

/** The gradeable a path names; a malformed id becomes one no item has, so the read stays well-formed. */
export const gradeableKey = (params: {
  readonly semester: string;
  readonly course: string;
  readonly gradeable_id: string;
}): GradeableKey => ({
  term: params.semester,
  course: params.course,
  gradeableId: pathGradeableId(params.gradeable_id),
});
