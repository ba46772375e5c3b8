import { readsHiddenTests } from '#shared/courses/access.ts';
import { gradeableRef } from '#shared/gradeables/stored.ts';
import { downloadForm, withoutHiddenTests } from '#shared/gradeables/listing.ts';
import { gradeableNotFound } from '#shared/gradeables/failures.ts';
import { gradeableIdFrom } from '#shared/gradeables/upload.ts';
import { endpoint } from '#shared/http/endpoint.ts';
import { definition } from './definition.ts';

export const handler = endpoint(definition, {
  reads: ({ params }) => ({ gradeable: gradeableRef(params.semester, params.course, params.gradeable_id) }),
  malformed: { gradeable_id: gradeableIdFrom },
  handle: ({ course, enrollment, acrossGroup, items }) => {
    if (!items.gradeable) throw gradeableNotFound();
    const form = downloadForm(items.gradeable, course.timeZone);
    return readsHiddenTests(enrollment, acrossGroup) ? form : withoutHiddenTests(form);
  },
});
