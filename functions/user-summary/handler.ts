import { courseGroups } from '#shared/courses/course.ts';
import { getItems } from '#shared/data/items.ts';
import { latestSummaryRef, summaryRef } from '#shared/data/summaries.ts';
import { endpoint } from '#shared/http/endpoint.ts';
import { forbidden } from '#shared/errors.ts';
import { noSummary } from '#shared/summaries/failures.ts';
import { definition } from './definition.ts';

export const handler = endpoint(definition, {
  reads: ({ params }) => ({ latest: latestSummaryRef(params.semester, params.course, params.user_id) }),
  // Students read only their own, which no malformed id is.
  malformed: {
    user_id: (userId, { enrollment }) => (enrollment?.group === courseGroups.instructor ? noSummary({ user_id: userId }) : forbidden()),
  },
  handle: async ({ caller, course, enrollment, params, items }) => {
    const userId = params.user_id;
    if (userId !== caller.userId && enrollment?.group !== courseGroups.instructor) throw forbidden();
    const missing = () => noSummary({ user_id: userId });
    if (!course.summaries) throw missing();
    const { generation } = course.summaries;
    if (items.latest?.generation === generation) return items.latest.document;
    // A newer generation is being written, or the summary predates the latest-summary key: read by generation.
    const { summary } = await getItems({ summary: summaryRef(course.term, course.course, generation, userId) });
    if (!summary) throw missing();
    return summary;
  },
});
