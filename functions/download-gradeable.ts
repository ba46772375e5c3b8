import { gradeableRef } from '#shared/data/gradeables.ts';
import { isValidGradeableId } from '#shared/gradeables/gradeable.ts';
import { downloadForm } from '#shared/gradeables/listing.ts';
import { gradeableNotFound } from '#shared/gradeables/failures.ts';
import { gradeableIdFrom } from '#shared/gradeables/upload.ts';
import { endpoint } from '#shared/http/endpoint.ts';

export const handler = endpoint('download-gradeable', {
  reads: ({ params }) => ({
    // A malformed id is refused by handle(); the placeholder keeps the read well-formed meanwhile.
    gradeable: gradeableRef(params.semester!, params.course!, isValidGradeableId(params.gradeable_id ?? '') ? params.gradeable_id! : '-'),
  }),
  handle: ({ course, params, items }) => {
    gradeableIdFrom(params.gradeable_id);
    if (!items.gradeable) throw gradeableNotFound();
    return downloadForm(items.gradeable, course.timeZone);
  },
});
