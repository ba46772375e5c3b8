/** The deployed day's steps of `submit-vcs` (test/deployed/day.ts says how the day runs them). */
import { expect } from 'vitest';
import {
  call,
  collectProblems,
  COURSE,
  expectBuildsFor,
  expectNoFailures,
  expectProblems,
  fail,
  failures,
  git,
  GRADEABLE,
  gradedValues,
  stack,
  TERM,
  UNAPPROVED,
  webhookEvent,
  type RouteDay,
} from '../../test/deployed/day.ts';

export const day: RouteDay = [
  {
    title: 'grading: submissions go through the queue and the worker into fresh CodeBuild builds, and are scored',
    phase: 'graded',
    builds: true,
    timeoutMs: 150_000,
    run: async () => {
      const submitted = await call('POST', `/api/${TERM}/${COURSE}/gradeable/${GRADEABLE}/upload`, {
        as: 'student',
        form: { user_id: 'student', vcs_checkout: 'true', git_repo_id: 'none' },
        headers: { 'Idempotency-Key': `day-${Date.now()}` },
      });
      if (submitted.json?.data && !/version 1\b/.test(String(submitted.json.data))) fail('submit as student', submitted.text);
      await call('POST', `/api/${TERM}/${COURSE}/gradeable/${GRADEABLE}/grade`, {
        as: 'student2',
        multipart: { user_id: 'student2', vcs_checkout: 'true', git_repo_id: 'none' },
      });

      if (failures.length > 0) expectNoFailures(); // nothing was queued: no use waiting for grades
      // The worker looks at a running build every 5 s.
      const deadline = Date.now() + 60_000;
      const mine = await gradedValues('student', '', deadline);
      if (mine?.autograding_complete) {
        expect({
          total_points: mine.total_points,
          total_percent: mine.total_percent,
          messages: mine.test_cases!.map((test) => test.testcase_message),
        }).toEqual({
          total_points: 6,
          total_percent: 1,
          messages: ['Passed', 'Passed'],
        });
      }
      const theirs = mine ? await gradedValues('ta', '?user_id=student2', deadline) : undefined;
      if (theirs?.autograding_complete) {
        // Staff see the hidden test case; student2's program says goodbye.
        expect({
          total_points: theirs.total_points,
          passed: theirs.test_cases!.map((test) => test.points_received),
        }).toEqual({ total_points: 1, passed: [0, 1, 0] });
      }
      const staffView = mine ? await gradedValues('prof', '?user_id=student', deadline) : undefined;
      if (staffView?.autograding_complete) expect(staffView.total_points).toBe(10);
      const graded = await git.head(`${GRADEABLE}-student`);

      // Each graded version reaches the webhook, signed, through the webhook queue and the delivery function.
      await webhookEvent('submission.graded for student', 'submission.graded', {
        gradeable_id: GRADEABLE,
        owner_id: 'student',
        version: 1,
        points: 6,
        commit: graded,
      });
      await webhookEvent('submission.graded for student2', 'submission.graded', {
        gradeable_id: GRADEABLE,
        owner_id: 'student2',
        version: 1,
      });
      await stack!.queues.idle(mine ? 30_000 : 1_000).catch((error: Error) => fail('grading queue', error.message));
      collectProblems('grading');
      expectNoFailures();
      // Builds as the build policy allows them for two jobs, and the worker removed every job object it put.
      expectBuildsFor(2, stack!.codebuild.started, 'CodeBuild builds started');
      expect(stack!.s3.storedKeys(), 'job objects left in the jobs bucket').toEqual([]);
    },
  },
  {
    title: 'grading: a gradeable naming an image the deployment does not offer ends failed, naming the offered ones',
    phase: 'graded',
    run: async () => {
      const builds = stack!.codebuild.started;
      // The worker logs the job it could not grade at level ERROR: expected here.
      expectProblems([/^Logged an error: GradingWorker\w*: .*Grading sandbox unavailable: job not graded/]);
      await call('POST', `/api/${TERM}/${COURSE}/gradeable/${UNAPPROVED}/upload`, {
        as: 'student',
        form: { user_id: 'student', vcs_checkout: 'true', git_repo_id: 'none' },
      });
      if (failures.length > 0) expectNoFailures();
      const values = await gradedValues('student', '', Date.now() + 30_000, UNAPPROVED);
      await webhookEvent('submission.failed', 'submission.failed', { gradeable_id: UNAPPROVED, owner_id: 'student' });
      await stack!.queues.idle(10_000).catch((error: Error) => fail('grading queue', error.message));
      collectProblems('submission of an unapproved image');
      expectProblems([]);
      expectNoFailures();
      expect(values?.test_cases?.map((test) => test.testcase_message)).toEqual([
        'The gradeable asks for the image "nope", which this deployment does not offer (offered: default).',
      ]);
      expect(stack!.codebuild.started, 'builds started for it').toBe(builds);
    },
  },
];
