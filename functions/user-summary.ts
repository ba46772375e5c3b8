import { courseGroups } from '#shared/courses/course.ts';
import { getItems } from '#shared/data/items.ts';
import { summaryRef } from '#shared/data/summaries.ts';
import { endpoint } from '#shared/http/endpoint.ts';
import { forbidden } from '#shared/errors.ts';
import { noSummary } from '#shared/summaries/failures.ts';
import { isValidUserId } from '#shared/users/user.ts';

export const handler = endpoint('user-summary', {
  handle: async ({ caller, course, enrollment, params }) => {
    const userId = params.user_id;
    if (userId !== caller.userId && enrollment?.group !== courseGroups.instructor) throw forbidden();
    const missing = () => noSummary({ user_id: userId.slice(0, 64) });
    if (!course.summaries || !isValidUserId(userId)) throw missing();
    const { summary } = await getItems({ summary: summaryRef(course.term, course.course, course.summaries.generation, userId) });
    if (!summary) throw missing();
    return summary;
  },
});
