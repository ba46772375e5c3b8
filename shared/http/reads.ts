/** Helpers for the reads a route declares with the token check (see endpoint.ts). */
import { pathGradeableId } from '#shared/gradeables/gradeable.ts';
import type { CourseGradeable } from '#shared/ids.ts';

/** The gradeable a path names; a malformed id becomes one no item has, so the read stays well-formed and finds nothing. */
export const courseGradeable = (params: {
  readonly semester: string;
  readonly course: string;
  readonly gradeable_id: string;
}): CourseGradeable => ({
  term: params.semester,
  course: params.course,
  gradeableId: pathGradeableId(params.gradeable_id),
});

/**
 * A path's gradeable id as a message echoes it ("Invalid gradeable id '…'"): at most 64 characters,
 * the longest a gradeable id is, since no schema bounds a path parameter's length.
 */
export const shownGradeableId = (params: { readonly gradeable_id: string }): string => params.gradeable_id.slice(0, 64);
