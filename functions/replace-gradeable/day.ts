/** The deployed day's steps of `replace-gradeable` (test/deployed/day.ts says how the day runs them). */
import { call, COURSE, handedOn, MISTAKE, TERM, type RouteDay } from '../../test/deployed/day.ts';

export const day: RouteDay = [
  {
    title: 'the mistaken gradeable changed, after a dry run, with If-Match',
    phase: 'gradeable replaced',
    run: async () => {
      const renamed = { ...handedOn.mistake?.data, title: 'Quiz 1 (copy)' };
      await call('PUT', `/api/${TERM}/${COURSE}/gradeable/${MISTAKE.id}?dry_run=true`, { as: 'prof', json: renamed });
      await call('PUT', `/api/${TERM}/${COURSE}/gradeable/${MISTAKE.id}`, {
        as: 'prof',
        json: renamed,
        headers: { 'If-Match': handedOn.mistake?.etag ?? '' },
      });
    },
  },
];
