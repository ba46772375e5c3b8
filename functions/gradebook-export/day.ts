/** The deployed day's steps of `gradebook-export` (test/deployed/day.ts says how the day runs them). */
import { call, COURSE, fail, failures, handedOn, TERM, type RouteDay } from '../../test/deployed/day.ts';

export const day: RouteDay = [
  {
    title: "the gradebook export, until it is done; its link downloads the CSV with the student's row; the grader cannot read it",
    phase: 'summaries done',
    timeoutMs: 120_000,
    run: async () => {
      const exportId = handedOn.gradebookExport;
      if (!exportId) return;
      const path = `/api/${TERM}/${COURSE}/gradebook/exports/${exportId}`;
      const deadline = Date.now() + 90_000;
      let data: { status?: string; url?: string | null } | undefined;
      while (failures.length === 0) {
        data = (await call('GET', path, { as: 'prof' })).json?.data;
        if (data?.status === 'done' || data?.status === 'failed' || Date.now() > deadline) break;
        await new Promise((resolve) => setTimeout(resolve, 1_000));
      }
      if (data?.status !== 'done' || !data.url) return fail('gradebook export', `not done in time: ${JSON.stringify(data).slice(0, 500)}`);
      // eslint-disable-next-line no-restricted-globals -- the emulated S3, not the API
      const csv = await (await fetch(data.url)).text();
      if (!csv.startsWith('user_id,first_name,last_name,') || !/\r\nstudent,/.test(csv)) fail('gradebook export CSV', csv.slice(0, 500));
      await call('GET', path, { as: 'ta', expect: { fail: `No gradebook export ${exportId} of yours in this course.`, status: 404 } });
    },
  },
];
