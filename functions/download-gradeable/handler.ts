import { readsHiddenTests } from '#shared/courses/access.ts';
import { gradeableRef } from '#shared/gradeables/stored.ts';
import { downloadForm, withoutHiddenTests } from '#shared/gradeables/listing.ts';
import { gradeableNotFound } from '#shared/gradeables/failures.ts';
import { gradeableIdFrom } from '#shared/gradeables/upload.ts';
import { endpoint } from '#shared/http/endpoint.ts';
import { courseGradeable } from '#shared/http/reads.ts';
import { definition } from './definition.ts';

export const handler = endpoint(definition, {
  reads: ({ params }) => {
    const { term, course, gradeableId } = courseGradeable(params);
    return { gradeable: gradeableRef(term, course, gradeableId) };
  },
  handle: ({ course, enrollment, acrossGroup, params, items }) => {
    gradeableIdFrom(params.gradeable_id);
    if (!items.gradeable) throw gradeableNotFound();
    const form = downloadForm(items.gradeable, course.timeZone);
    return readsHiddenTests(enrollment, acrossGroup) ? form : withoutHiddenTests(form);
  },
});
