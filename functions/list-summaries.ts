import { summariesOf } from '#shared/data/summaries.ts';
import { endpoint } from '#shared/http/endpoint.ts';

export const handler = endpoint('list-summaries', {
  handle: async ({ course }) => ({
    generated_at: course.summaries?.generatedAt ?? null,
    summaries: course.summaries ? await summariesOf(course.term, course.course, course.summaries.generation) : [],
  }),
});
