import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { claimLineItemCreation, lineItemRef, scoreDeliveriesOf } from '#shared/data/lti-scores.ts';
import { getItems } from '#shared/data/items.ts';
import { ltiLinksOfCourse } from '#shared/data/lti.ts';
import { handleLtiScoreMessage } from '#shared/gradebook/lti-scores.ts';
import { scorePlatform } from '#shared/lti/score-platform.ts';
import { runAsFunction } from '#shared/environment.ts';
import { localFunctionScope } from '#infra/local/functions.ts';
import { addMember, createCourseWorld, type CourseWorld } from '../support/courses.ts';
import { startTestApi, type TestApi } from '../support/http.ts';
import { createUser, type TestUser } from '../support/users.ts';
import { ROLES, startLtiPlatform, type LtiTestPlatform } from '../support/lti-platform.ts';
import { launchSession as launchOf, lmsSub, registerPlatform, settledDeliveries } from '../support/lti-sessions.ts';
import { revokeSeenTokens } from '../support/lti-platform-services.ts';
import { uploadGradeable } from '../support/gradeables.ts';
import { rubricComponent } from '../support/rubric.ts';
import { putGradedSubmission } from '../support/submissions.ts';
import { closeAll } from '../support/allowed-servers.ts';

/**
 * A gradeable's line item in a linked LMS course is created once, however many of its students'
 * grades are sent at the same moment by concurrent lti-score functions: the LMS's grade book gets
 * one column, and every score lands in it.
 */
const CONTEXT = 'lms-line-items';
const ROUNDS = 6;
let api: TestApi;
let platform: LtiTestPlatform;
let world: CourseWorld;
let students: TestUser[];

beforeAll(async () => {
  api = await startTestApi({ workers: 0, outboxRelayMs: 0 });
  platform = await startLtiPlatform(api.url);
  vi.stubEnv('LTI_FRONTEND_URL', 'http://127.0.0.1:5173/lti');
  vi.stubEnv('LTI_ALLOWED_HOSTS', platform.host);
  world = await createCourseWorld(api);
  const extra = await Promise.all([createUser('user', 'racer3'), createUser('user', 'racer4')]);
  for (const user of extra) await addMember(world.course, user, 4, '1');
  students = [world.users.student, world.users.student2, ...extra];
  await registerPlatform(api, world, platform, [world.users.instructor, ...students]);
  const instructor = await launchSession(world.users.instructor, [ROLES.instructor]);
  const linked = await api.postJson(`/${world.course.term}/${world.course.course}/lti/link`, { section: '1' }, instructor);
  expect(linked.json.status, linked.text).toBe('success');
  for (const user of students) await launchSession(user, [ROLES.learner]);
  for (let round = 0; round < ROUNDS; round++) {
    const id = `race${round}`;
    await uploadGradeable(api, world, { id, title: `Race ${round}`, type: 'Numeric', rubric: [rubricComponent('Points')] });
    for (const user of students) await putGradedSubmission({ ...world.course, gradeableId: id, userId: user.userId, points: 1 });
  }
}, 120_000);
afterAll(() => closeAll(platform, api));

const launchSession = (user: TestUser, roles: string[]) => launchOf(api, platform, user, { roles, contextId: CONTEXT });

describe("a gradeable's line item", () => {
  it('is created once when its students’ grades are sent at the same moment, and every score lands in it', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const gradeableId = `race${round}`;
      const gradedAt = new Date().toISOString();
      // One lti-score function per student, as SQS hands a burst of messages to several at once.
      const send = (user: TestUser) =>
        runAsFunction(localFunctionScope('lti-score'), () =>
          handleLtiScoreMessage(
            { kind: 'grade', term: world.course.term, course: world.course.course, gradeableId, ownerId: user.userId, gradedAt },
            1,
            scorePlatform,
          ),
        );
      await Promise.all(students.map(send));
      // A function that found another creating the line item tries again shortly: the queue's later messages.
      await settledDeliveries(api, world.course);
      const columns = platform.grades.lineItems(CONTEXT).filter((item) => item.resourceId === gradeableId);
      expect(columns, `round ${round}: the LMS's columns for ${gradeableId}`).toHaveLength(1);
      for (const user of students) {
        expect(platform.grades.scoreOf(CONTEXT, gradeableId, lmsSub(user)), `round ${round}: ${user.userId}`).toMatchObject({
          scoreMaximum: columns[0]!.scoreMaximum,
        });
      }
    }
  });

  it('is created by the next try once the claim of a creator that died runs out, and only then', async () => {
    const gradeableId = 'orphaned';
    await uploadGradeable(api, world, { id: gradeableId, title: 'Orphaned', type: 'Numeric', rubric: [rubricComponent('Points')] });
    const [student] = students;
    await putGradedSubmission({ ...world.course, gradeableId, userId: student!.userId, points: 1 });
    const [link] = (await ltiLinksOfCourse(world.course.term, world.course.course)).filter((each) => each.contextId === CONTEXT);
    // A function claimed the line item's creation and died before it asked the LMS: its claim holds for a moment more.
    const now = new Date();
    const until = new Date(now.getTime() + 1_500);
    expect(await claimLineItemCreation(link!.registrationId, CONTEXT, gradeableId, { holder: 'a function that died', until, now })).toBe(
      true,
    );
    const send = () =>
      runAsFunction(localFunctionScope('lti-score'), () =>
        handleLtiScoreMessage(
          {
            kind: 'grade',
            term: world.course.term,
            course: world.course.course,
            gradeableId,
            ownerId: student!.userId,
            gradedAt: new Date().toISOString(),
          },
          1,
          scorePlatform,
        ),
      );
    await send();
    const waiting = (await scoreDeliveriesOf(world.course.term, world.course.course)).find(
      (each) => each.gradeableId === gradeableId && each.userId === student!.userId,
    );
    expect(waiting, 'the delivery waits while the claim holds').toMatchObject({ state: 'pending' });
    expect(platform.grades.lineItems(CONTEXT).filter((item) => item.resourceId === gradeableId)).toHaveLength(0);
    // Its next try, once the claim ran out, creates the line item and sends the score.
    const settled = await settledDeliveries(api, world.course);
    expect(Date.now(), 'the next try came after the claim ran out').toBeGreaterThan(until.getTime());
    const columns = platform.grades.lineItems(CONTEXT).filter((item) => item.resourceId === gradeableId);
    expect(columns).toHaveLength(1);
    expect(settled.find((each) => each.gradeableId === gradeableId && each.userId === student!.userId)).toMatchObject({ state: 'sent' });
    expect(platform.grades.scoreOf(CONTEXT, gradeableId, lmsSub(student!))).toMatchObject({ scoreMaximum: columns[0]!.scoreMaximum });
    const { recorded } = await getItems({ recorded: lineItemRef(link!.registrationId, CONTEXT, gradeableId) });
    expect(recorded?.url).toBe(columns[0]!.id);
  });

  it('is sent with a new service token when the LMS stops taking the one it gave (401): the 401 is no attempt of the delivery', async () => {
    const gradeableId = 'race0';
    const [student] = students;
    const send = (gradedAt: string) =>
      runAsFunction(localFunctionScope('lti-score'), () =>
        handleLtiScoreMessage(
          { kind: 'grade', term: world.course.term, course: world.course.course, gradeableId, ownerId: student!.userId, gradedAt },
          1,
          scorePlatform,
        ),
      );
    expect(await send(new Date().toISOString())).toBe('handled');
    const granted = platform.tokenRequests;
    // The LMS lost or revoked every token it gave: the tool's cached one is now answered 401.
    revokeSeenTokens(platform.provider);
    const gradedAt = new Date(Date.now() + 1).toISOString();
    expect(await send(gradedAt)).toBe('handled');
    const delivery = (await scoreDeliveriesOf(world.course.term, world.course.course)).find(
      (each) => each.gradeableId === gradeableId && each.userId === student!.userId,
    );
    expect(delivery).toMatchObject({ state: 'sent', gradedAt });
    expect(delivery!.attempts.at(-1)).toMatchObject({ status: 204 });
    expect(delivery!.attempts.map((attempt) => attempt.status)).not.toContain(401);
    expect(platform.tokenRequests - granted, 'tokens asked for').toBe(1);
    expect(platform.grades.scoreOf(CONTEXT, gradeableId, lmsSub(student!))).toMatchObject({ timestamp: gradedAt });
  });
});
