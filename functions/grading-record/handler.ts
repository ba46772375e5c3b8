import { courseGroups } from '#shared/courses/course.ts';
import { gradeableNotFound } from '#shared/gradeables/failures.ts';
import { isVisible } from '#shared/gradeables/listing.ts';
import { versionRecord } from '#shared/grading/version-record.ts';
import { endpoint } from '#shared/http/endpoint.ts';
import { courseGradeable } from '#shared/http/reads.ts';
import { readableTarget, submissionReads, submissionToShow } from '#shared/submissions/reading.ts';
import { definition } from './definition.ts';

export const handler = endpoint(definition, {
  malformed: { gradeable_id: () => gradeableNotFound() },
  reads: ({ params, query, userId }) => {
    const { queue: _queue, ...reads } = submissionReads(courseGradeable(params), userId, query.user_id);
    return reads;
  },
  handle: async ({ caller, course, enrollment, query, items }) => {
    if (!items.gradeable || !isVisible(items.gradeable, enrollment, new Date())) throw gradeableNotFound();
    readableTarget(caller, enrollment, query.user_id, items.target);
    const staff = (enrollment?.group ?? courseGroups.student) < courseGroups.student;
    return versionRecord(await submissionToShow(items.gradeable, items, course), query.version, staff);
  },
});
