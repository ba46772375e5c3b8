import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { gradeNextJob } from '#shared/grading/worker/worker.ts';
import { claimJob } from '#shared/queue/claim.ts';
import { createCourseWorld, type CourseWorld } from '../support/courses.ts';
import { startTestApi, type TestApi } from '../support/http.ts';
import { ROLES, startLtiPlatform, type LtiTestPlatform } from '../support/lti-platform.ts';
import { deliveryOf, launchSession, lmsSub, registerPlatform, settledDeliveries } from '../support/lti-sessions.ts';
import { greets, selfHostedGradeableJson, uploadGradeable } from '../support/gradeables.ts';
import type { GitServer } from '../support/git-server.ts';
import { closeAll, startAllowedGitServer } from '../support/allowed-servers.ts';

/**
 * A job given up after three attempts (workers that took it and vanished) tells the linked LMS
 * course that the grading failed, as the worker's own failures do (test/http/lti-scores.test.ts):
 * no worker runs here, so the test takes the job itself, over DynamoDB Local, the outbox and the
 * test platform's grade service.
 */
const CONTEXT = 'lms-give-up';
let api: TestApi;
let platform: LtiTestPlatform;
let world: CourseWorld;
let git: GitServer;

beforeAll(async () => {
  git = await startAllowedGitServer({ 'hello-student': { 'hello.sh': 'echo "Hello, World!"\n' } });
  api = await startTestApi({ workers: 0, outboxRelayMs: 0 });
  platform = await startLtiPlatform(api.url);
  vi.stubEnv('LTI_FRONTEND_URL', 'http://127.0.0.1:5173/lti');
  vi.stubEnv('LTI_ALLOWED_HOSTS', [platform.host, git.url.replace(/^http:\/\//, '')].join(','));
  world = await createCourseWorld(api);
  await registerPlatform(api, world, platform, Object.values(world.users));
  const session = await launchSession(api, platform, world.users.instructor, { roles: [ROLES.instructor], contextId: CONTEXT });
  const linked = await api.postJson(`/${world.course.term}/${world.course.course}/lti/link`, { section: '1' }, session);
  expect(linked.json.status, linked.text).toBe('success');
  await launchSession(api, platform, world.users.student, { roles: [ROLES.learner], contextId: CONTEXT });
  await uploadGradeable(
    api,
    world,
    selfHostedGradeableJson('hello', `${git.url}/{$gradeable_id}-student.git`, { autograding: { test_cases: [greets(5)] } }),
  );
}, 120_000);
afterAll(() => closeAll(platform, api, git));

describe('a job given up after three attempts', () => {
  it('sends the LMS Failed without a score, timestamped with the giving up', async () => {
    const submitted = await api.postForm(
      `/${world.course.term}/${world.course.course}/gradeable/hello/upload`,
      { vcs_checkout: 'true', git_repo_id: 'x' },
      world.tokens.student,
    );
    expect(submitted.json.status, submitted.text).toBe('success');
    vi.stubEnv('GRADING_HEARTBEAT_LEASE_SECONDS', '1');
    for (let attempt = 1; attempt <= 3; attempt++) {
      expect((await claimJob())?.attempts).toBe(attempt); // taken by a worker that vanishes
      await new Promise((resolve) => setTimeout(resolve, 1_050));
    }
    vi.stubEnv('GRADING_HEARTBEAT_LEASE_SECONDS', '60');
    const before = new Date().toISOString();
    expect(await gradeNextJob()).toBe('failed');
    const after = new Date().toISOString();

    const deliveries = await settledDeliveries(api, world.course, (all) => deliveryOf(all, 'hello', world.users.student) !== undefined);
    const score = platform.grades.scoreOf(CONTEXT, 'hello', lmsSub(world.users.student));
    expect(score).toEqual({
      userId: lmsSub(world.users.student),
      activityProgress: 'Completed',
      gradingProgress: 'Failed',
      timestamp: deliveryOf(deliveries, 'hello', world.users.student)!.gradedAt,
    });
    expect(score!.timestamp >= before && score!.timestamp <= after, `${before} ≤ ${score!.timestamp} ≤ ${after}`).toBe(true);
  }, 60_000);
});
