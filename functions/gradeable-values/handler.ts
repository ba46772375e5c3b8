import { gradeableNotFound } from '#shared/gradeables/failures.ts';
import { isVisible } from '#shared/gradeables/listing.ts';
import { endpoint } from '#shared/http/endpoint.ts';
import { courseGradeable } from '#shared/http/reads.ts';
import { hiddenTestCasesShown, readableTarget, readTarget, submissionReads, submissionToShow } from '#shared/submissions/reading.ts';
import { activeStanding, standingReads, standingWork } from '#shared/submissions/standing.ts';
import { gradeableValues, taValues } from '#shared/submissions/submission.ts';
import { definition } from './definition.ts';

export const handler = endpoint(definition, {
  malformed: { gradeable_id: () => gradeableNotFound() },
  reads: ({ params, query, userId }) => ({
    ...submissionReads(courseGradeable(params), userId, query.user_id),
    ...standingReads(courseGradeable(params), readTarget(userId, query.user_id)),
  }),
  alongside: ({ params, query, userId }) => standingWork(courseGradeable(params), readTarget(userId, query.user_id)),
  handle: async ({ caller, course, enrollment, query, items, alongside }) => {
    // A gradeable the caller may not see yet (students: before submission opens) does not exist for them.
    if (!items.gradeable || !isVisible(items.gradeable, enrollment, new Date())) throw gradeableNotFound();
    readableTarget(caller, enrollment, query.user_id, items.target);
    const staff = (enrollment?.group ?? 4) < 4;
    const submission = await submissionToShow(items.gradeable, items, course);
    const now = new Date();
    const values = gradeableValues(submission, items.queue, { hidden: hiddenTestCasesShown(enrollment, items.gradeable, now) });
    const standing = activeStanding({
      ...items,
      course,
      student: items.target,
      work: alongside,
      gradeable: items.gradeable,
      submission,
      position: values.queue_position,
      now,
    });
    return { ...values, ...taValues(items.gradeable, submission, values.total_points, { forStudent: !staff, now }), ...standing };
  },
});
