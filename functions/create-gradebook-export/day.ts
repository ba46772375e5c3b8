/** The deployed day's steps of `create-gradebook-export` (test/deployed/day.ts says how the day runs them). */
import { call, COURSE, fail, handedOn, TERM, type RouteDay } from '../../test/deployed/day.ts';

export const day: RouteDay = [
  {
    title: 'the instructor asks for the gradebook as CSV: queued for the summaries worker; an unknown format is refused',
    phase: 'summaries generated',
    run: async () => {
      const posted = await call('POST', `/api/${TERM}/${COURSE}/gradebook/exports`, { as: 'prof', json: { format: 'csv' } });
      const data = posted.json?.data as { export_id?: string; status?: string } | undefined;
      if (data && (!data.export_id || data.status !== 'queued')) fail('gradebook export', posted.text.slice(0, 500));
      handedOn.gradebookExport = data?.export_id;
      await call('POST', `/api/${TERM}/${COURSE}/gradebook/exports`, {
        as: 'prof',
        json: { format: 'xlsx' },
        expect: { fail: 'The gradebook is exported as csv only, not xlsx.', status: 400 },
      });
    },
  },
];
