/** The deployed day's steps of `regrade-status` (test/deployed/day.ts says how the day runs them). */
import {
  call,
  CAN_BUILD,
  collectProblems,
  COURSE,
  expectBuildsFor,
  fail,
  GRADEABLE,
  handedOn,
  NEEDS_ROOT,
  regradeState,
  stack,
  TERM,
  type RouteDay,
} from '../../test/deployed/day.ts';

export const day: RouteDay = [
  {
    title: `the regrade's job object reports its progress until done${CAN_BUILD ? '' : NEEDS_ROOT}`,
    phase: 'regrade done',
    timeoutMs: 150_000,
    run: async () => {
      const regrade = handedOn.regrade;
      if (regrade?.id) await regradeState(regrade.id, Date.now() + 90_000);
      if (CAN_BUILD && regrade) {
        await stack!.queues.idle(30_000).catch((error: Error) => fail('grading queue', error.message));
        collectProblems('regrade');
        expectBuildsFor(2, stack!.codebuild.started - regrade.builds, 'builds started for the regrade');
        const mine = await call('GET', `/api/${TERM}/${COURSE}/gradeable/${GRADEABLE}/values`, { as: 'student' });
        if (mine.json?.data && mine.json.data.total_points !== 6) fail('values after the regrade', mine.text.slice(0, 500));
        const theirs = await call('GET', `/api/${TERM}/${COURSE}/gradeable/${GRADEABLE}/values?user_id=student2`, { as: 'ta' });
        if (theirs.json?.data && theirs.json.data.total_points !== 1)
          fail("student2's values after the regrade", theirs.text.slice(0, 500));
      }
    },
  },
];
