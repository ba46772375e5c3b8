/** The deployed day's steps of `regrade` (test/deployed/day.ts says how the day runs them). */
import { expect } from 'vitest';
import {
  call,
  CAN_BUILD,
  collectProblems,
  COURSE,
  fail,
  FILES,
  git,
  GRADEABLE,
  gradedFiles,
  handedOn,
  NEEDS_ROOT,
  regradeState,
  stack,
  TERM,
  type RouteDay,
} from '../../test/deployed/day.ts';

export const day: RouteDay = [
  {
    title: `the instructor regrades every active version${CAN_BUILD ? '' : NEEDS_ROOT}`,
    phase: 'regraded',
    run: async () => {
      const builds = stack!.codebuild.started;
      // student2 pushes a fix after grading: the regrade grades their version's own commit, not the fix.
      if (CAN_BUILD) await git.push(`${GRADEABLE}-student2`, { 'hello.sh': 'echo "Hello, World!"\n' });
      const regraded = await call('POST', `/api/${TERM}/${COURSE}/gradeable/${GRADEABLE}/regrade`, { as: 'prof', json: {} });
      const job = regraded.json?.data as { regrade_id?: string; queued?: number; state?: string } | undefined;
      // With builds, student's and student2's graded versions go through the queue and fresh builds again.
      const expected = CAN_BUILD ? 2 : 0;
      if (job && job.queued !== expected) fail('regrade', `${expected} versions should be queued: ${regraded.text.slice(0, 500)}`);
      handedOn.regrade = { id: job?.regrade_id, builds };
    },
  },
  {
    title: "the instructor regrades a student's archive: read again from the bucket, in a build of its own",
    phase: 'files regraded',
    builds: true,
    timeoutMs: 150_000,
    run: async () => {
      const builds = stack!.codebuild.started;
      const regraded = await call('POST', `/api/${TERM}/${COURSE}/gradeable/${FILES}/regrade`, {
        as: 'prof',
        json: { user_id: 'student' },
      });
      const job = regraded.json?.data as { regrade_id?: string; queued?: number } | undefined;
      if (job && job.queued !== 1) fail('files regrade', `one version should be queued: ${regraded.text.slice(0, 500)}`);
      if (job?.regrade_id) await regradeState(job.regrade_id, Date.now() + 90_000);
      await stack!.queues.idle(30_000).catch((error: Error) => fail('grading queue', error.message));
      expect(stack!.codebuild.started - builds, 'builds started for the files regrade').toBe(1);
      const status = job?.regrade_id && (await call('GET', `/api/${TERM}/${COURSE}/regrades/${job.regrade_id}`, { as: 'prof' }));
      if (status && (status.json?.data?.graded !== 1 || status.json?.data?.failed !== 0)) fail('files regrade', status.text.slice(0, 500));
      await gradedFiles(2);
      collectProblems('files');
    },
  },
];
