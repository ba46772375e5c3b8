import { gradeableRef } from '#shared/gradeables/stored.ts';
import { pathGradeableId } from '#shared/gradeables/gradeable.ts';
import { downloadForm } from '#shared/gradeables/listing.ts';
import { gradeableNotFound } from '#shared/gradeables/failures.ts';
import { gradeableIdFrom } from '#shared/gradeables/upload.ts';
import { endpoint } from '#shared/http/endpoint.ts';

export const handler = endpoint('download-gradeable', {
  reads: ({ params }) => ({
    gradeable: gradeableRef(params.semester!, params.course!, pathGradeableId(params.gradeable_id)),
  }),
  handle: ({ course, params, items }) => {
    gradeableIdFrom(params.gradeable_id);
    if (!items.gradeable) throw gradeableNotFound();
    return downloadForm(items.gradeable, course.timeZone);
  },
});
