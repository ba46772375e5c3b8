/** The gradebook's fails (declared once: the code throws them, the API contract lists them). */
import { ECHOED_LENGTH, failure } from '#shared/errors.ts';
import { MAX_EXPORT_GRADEABLES } from './export-limits.ts';

export const formatMissing = /* @__PURE__ */ failure('invalid', 'Give format: csv.');
export const formatUnknown = /* @__PURE__ */ failure('invalid', 'The gradebook is exported as csv only, not {format}.', {
  format: ECHOED_LENGTH,
});
export const tooManyExportGradeables = /* @__PURE__ */ failure(
  'invalid',
  `An export names at most ${MAX_EXPORT_GRADEABLES} gradeables; leave out gradeable_ids for every gradeable.`,
);
export const exportGradeableNotFound = /* @__PURE__ */ failure('not-found', 'No gradeable {gradeable_id} in this course to export.', {
  gradeable_id: ECHOED_LENGTH,
});
export const gradebookExportNotFound = /* @__PURE__ */ failure('not-found', 'No gradebook export {export_id} of yours in this course.', {
  export_id: ECHOED_LENGTH,
});
