/** The deployed day's steps of `list-lti-scores` (test/deployed/day.ts says how the day runs them). */
import { call, COURSE, fail, GRADEABLE, handedOn, TERM, type RouteDay } from '../../test/deployed/day.ts';

export const day: RouteDay = [
  {
    title: 'a course linked to no LMS course has no score deliveries',
    phase: 'courses read',
    run: async () => {
      const listed = await call('GET', `/api/${TERM}/${COURSE}/lti/scores?state=failed`, { as: 'prof' });
      if (listed.text !== '' && !listed.text.includes('"data":[]')) fail('GET …/lti/scores', listed.text.slice(0, 500));
    },
  },
  {
    title: "the instructor lists the linked LMS's score deliveries: the student's sent, the one who never launched skipped, saying why",
    phase: 'lms scores read',
    builds: true,
    run: async () => {
      type Row = { user_id: string; state: string; reason: string | null; delivery_id: string };
      // The other student's grade may still be on its way through the LTI score queue.
      const deadline = Date.now() + 30_000;
      let listed: Awaited<ReturnType<typeof call>>;
      let rows: Row[];
      let state: Record<string, string>;
      do {
        listed = await call('GET', `/api/${TERM}/${COURSE}/lti/scores?gradeable_id=${GRADEABLE}`, { as: 'prof' });
        rows = (listed.json?.data ?? []) as Row[];
        state = Object.fromEntries(rows.map((row) => [row.user_id, row.state]));
        if (state.student2 === 'skipped' || Date.now() > deadline) break;
        await new Promise((resolve) => setTimeout(resolve, 1_000));
      } while (listed.status === 200);
      if (state.student !== 'sent' || state.student2 !== 'skipped')
        return fail('GET …/lti/scores', `expected student sent and student2 skipped: ${listed.text.slice(0, 800)}`);
      if (!rows.find((row) => row.user_id === 'student2')?.reason?.includes('has not opened the tool from the LMS yet'))
        fail('GET …/lti/scores', `a skipped delivery without its reason: ${listed.text.slice(0, 800)}`);
      handedOn.skippedScore = rows.find((row) => row.user_id === 'student2')?.delivery_id;
    },
  },
];
