/** The deployed day's steps of `download-gradeable` (test/deployed/day.ts says how the day runs them). */
import { call, COURSE, fail, GRADEABLE, handedOn, MISTAKE, NEW_COURSE, NEW_TERM, TERM, type RouteDay } from '../../test/deployed/day.ts';

export const day: RouteDay = [
  {
    title: 'downloads the homework, and its copy in the new course',
    phase: 'courses read',
    run: async () => {
      const downloaded = await call('GET', `/api/${TERM}/${COURSE}/${GRADEABLE}/download`, { as: 'prof' });
      if (downloaded.json?.data && downloaded.json.data.id !== GRADEABLE) fail('download', downloaded.text.slice(0, 500));
      await call('GET', `/api/${NEW_TERM}/${NEW_COURSE}/${GRADEABLE}/download`, { as: 'ta' });
    },
  },
  {
    title: 'downloads the gradeable uploaded by mistake, with its ETag',
    phase: 'gradeable downloaded',
    run: async () => {
      const downloaded = await call('GET', `/api/${TERM}/${COURSE}/${MISTAKE.id}/download`, { as: 'prof' });
      handedOn.mistake = { etag: downloaded.headers.get('etag') ?? '', data: downloaded.json?.data };
    },
  },
];
