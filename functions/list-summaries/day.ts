/** The deployed day's steps of `list-summaries` (test/deployed/day.ts says how the day runs them). */
import { call, COURSE, fail, handedOn, TERM, type RouteDay } from '../../test/deployed/day.ts';

export const day: RouteDay = [
  {
    title: "lists the course's summaries, with their generation time",
    phase: 'summaries read',
    run: async () => {
      const listed = await call('GET', `/api/${TERM}/${COURSE}/reports/summaries`, { as: 'prof' });
      handedOn.firstGeneration = listed.json?.data?.generated_at as string | undefined;
      if (listed.json?.data && !(listed.json.data.summaries as unknown[]).length)
        fail('list summaries', `no summaries: ${listed.text.slice(0, 500)}`);
      await call('GET', `/api/courses/${TERM}/${COURSE}/reports/summaries`, { as: 'prof' });
    },
  },
];
