/** The deployed day's steps of `gradeable-attempts` (test/deployed/day.ts says how the day runs them). */
import { call, COURSE, fail, git, GRADEABLE, TERM, type RouteDay } from '../../test/deployed/day.ts';

export const day: RouteDay = [
  {
    title: "lists the student's graded version, with the commit the worker checked out and graded",
    phase: 'graded read',
    builds: true,
    run: async () => {
      const attempts = await call('GET', `/api/${TERM}/${COURSE}/gradeable/${GRADEABLE}/attempts`, { as: 'student' });
      if (attempts.json?.data && (attempts.json.data as unknown[]).length !== 1) fail('attempts as student', attempts.text.slice(0, 800));
      // The worker checked the repository out before uploading it to the build, and recorded the commit it graded.
      const graded = await git.head(`${GRADEABLE}-student`);
      const recorded = (attempts.json?.data as { commit?: unknown }[] | undefined)?.[0]?.commit;
      if (attempts.json?.data && recorded !== graded)
        fail('attempts as student', `version 1 should record commit ${graded}: ${attempts.text.slice(0, 800)}`);
    },
  },
];
