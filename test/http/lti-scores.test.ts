import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { getItems } from '#shared/data/items.ts';
import { putScoreDelivery, scoreDeliveriesOf, scoreDeliveryId, type ScoreDelivery } from '#shared/data/lti-scores.ts';
import { TOTALS_PAGE } from '#shared/gradebook/lti-scores.ts';
import { resumeQueues } from '#infra/local/recovery.ts';
import { outboxEntries, outboxPut } from '#shared/data/webhook-outbox.ts';
import { gradeableKey } from '#shared/data/submissions.ts';
import { recordedResultsRef } from '#shared/data/results.ts';
import { transactWrite } from '#shared/data/transactions.ts';
import { LTI_SCORE_QUEUE, ltiMessageId, ltiScoreOutbox } from '#shared/lti/score-queue.ts';
import { addMember, createCourseWorld, type CourseWorld } from '../support/courses.ts';
import { startTestApi, type TestApi } from '../support/http.ts';
import { createUser, type TestUser } from '../support/users.ts';
import { ROLES, startLtiPlatform, type LtiTestPlatform } from '../support/lti-platform.ts';
import {
  deliveryOf,
  launchSession as launchOf,
  lmsSub,
  registerPlatform,
  settledDeliveries as settledOf,
} from '../support/lti-sessions.ts';
import { greets, runs, selfHostedGradeableJson, uploadGradeable, vcsGradeableJson } from '../support/gradeables.ts';
import { rubricComponent } from '../support/rubric.ts';
import { putGradedSubmission } from '../support/submissions.ts';
import { daysFromNow } from '../support/dates.ts';
import { setLateDayBudget } from '../support/late-days.ts';
import type { GitServer } from '../support/git-server.ts';
import { closeAll, startAllowedGitServer } from '../support/allowed-servers.ts';

/**
 * Grades sent back to a linked LMS course (LTI Assignment and Grade Services) end to end over
 * HTTP: an instructor links the LMS course from their launch, students launch once (binding
 * their LMS `sub`), and each grade recorded (autograded, or a TA's) reaches the test platform's
 * grade service as a score, through the outbox, the relay, the LTI score queue and the lti-score
 * function; the platform's faults are retried on the schedule, a refusal for one student is kept
 * as failed, and a student who never launched is skipped.
 */
const CONTEXT = 'lms-scores';
let api: TestApi;
let platform: LtiTestPlatform;
let world: CourseWorld;
let git: GitServer;
let base: string;
let student3: TestUser;

beforeAll(async () => {
  vi.stubEnv('WEBHOOK_RETRY_SCHEDULE', '0.2,0.2,0.2');
  git = await startAllowedGitServer({
    'hello-student': { 'hello.sh': 'echo "Hello, World!"\n' },
    'rewritten-student': { 'hello.sh': 'echo "Hello, World!"\n' },
  });
  // The outbox relay runs when the test asks, so that the entries a grade writes can be counted.
  api = await startTestApi({ workers: 1, outboxRelayMs: 0 });
  platform = await startLtiPlatform(api.url);
  vi.stubEnv('LTI_FRONTEND_URL', 'http://127.0.0.1:5173/lti');
  vi.stubEnv('LTI_ALLOWED_HOSTS', [platform.host, git.url.replace(/^http:\/\//, '')].join(','));
  world = await createCourseWorld(api);
  base = `/${world.course.term}/${world.course.course}`;
  student3 = await createUser('user', 'student3');
  await addMember(world.course, student3, 4, '1');
  await registerPlatform(api, world, platform, [...Object.values(world.users), student3]);
  // The instructor links the LMS course from their launch; the students but student3 launch once.
  const session = await launchSession(world.users.instructor, [ROLES.instructor]);
  const linked = await api.postJson(`${base}/lti/link`, { section: '1' }, session);
  expect(linked.json.status, linked.text).toBe('success');
  for (const user of [world.users.student, world.users.student2]) await launchSession(user, [ROLES.learner]);
  await uploadGradeable(
    api,
    world,
    selfHostedGradeableJson('hello', `${git.url}/{$gradeable_id}-student.git`, {
      title: 'Hello',
      autograding: { test_cases: [greets(5)] },
    }),
  );
  await uploadGradeable(api, world, {
    id: 'essay',
    title: 'Essay',
    type: 'Electronic File',
    vcs: { repository_type: 'public-github', vcs_path: 'https://github.com/example/{$gradeable_id}-{$user_id}', vcs_subdirectory: '' },
    ta_grading: true,
    rubric: [rubricComponent('Argument'), rubricComponent('Style')],
    dates: {
      ta_view_start_date: daysFromNow(-20),
      submission_open_date: daysFromNow(-19),
      submission_due_date: daysFromNow(-10),
      team_lock_date: daysFromNow(-10),
      grade_start_date: daysFromNow(-9),
      grade_due_date: daysFromNow(-8),
      grade_released_date: daysFromNow(5),
      grade_inquiry_start_date: daysFromNow(5),
      grade_inquiry_due_date: daysFromNow(6),
    },
  });
  for (const user of [world.users.student, world.users.student2, student3]) {
    await putGradedSubmission({ ...world.course, gradeableId: 'essay', userId: user.userId, points: 0 });
  }
}, 120_000);
afterAll(() => closeAll(platform, api, git));

const launchSession = (user: TestUser, roles: string[]) => launchOf(api, platform, user, { roles, contextId: CONTEXT });

const sub = lmsSub;

const settledDeliveries = (done?: (deliveries: ScoreDelivery[]) => boolean) => settledOf(api, world.course, done);

const grade = (user: TestUser, componentId: number, points: number, revision?: number) =>
  api.postJson(
    `${base}/gradeable/essay/grading/${user.userId}`,
    { component_id: componentId, custom_points: points, ...(revision === undefined ? {} : { revision }) },
    { ...world.tokens.ta, Prefer: 'http-status' },
  );

/** A delivery of a score of 1 out of 1 the LMS took a minute ago: one more for a change of totals to page past. */
function sentAMinuteAgo(
  id: Pick<ScoreDelivery, 'gradeableId' | 'userId' | 'registrationId' | 'contextId'>,
  lmsUser: string,
): ScoreDelivery {
  const at = new Date(Date.now() - 60_000).toISOString();
  return {
    ...world.course,
    ...id,
    ownerId: id.userId,
    deliveryId: scoreDeliveryId(id),
    state: 'sent',
    gradedAt: at,
    changeIds: [],
    reason: null,
    attempts: [{ at, status: 204 }],
    roundStart: 0,
    lastSent: {
      userId: lmsUser,
      scoreGiven: 1,
      scoreMaximum: 1,
      activityProgress: 'Completed',
      gradingProgress: 'FullyGraded',
      timestamp: at,
    },
    nextAttemptAt: null,
    updatedAt: at,
  };
}
describe('grades sent back to the linked LMS course', () => {
  it('sends an autograded submission as the score the gradebook shows, for the student’s LMS id, timestamped with the grade', async () => {
    const submitted = await api.postForm(
      `${base}/gradeable/hello/upload`,
      { vcs_checkout: 'true', git_repo_id: 'x' },
      world.tokens.student,
    );
    expect(submitted.json.status, submitted.text).toBe('success');
    const deliveries = await settledDeliveries((all) => deliveryOf(all, 'hello', world.users.student)?.state === 'sent');
    const { results } = await getItems({
      results: recordedResultsRef(gradeableKey(world.course.term, world.course.course, 'hello'), world.users.student.userId, 1),
    });
    const score = platform.grades.scoreOf(CONTEXT, 'hello', sub(world.users.student));
    expect(score).toEqual({
      userId: sub(world.users.student),
      scoreGiven: 5,
      scoreMaximum: 5,
      activityProgress: 'Completed',
      gradingProgress: 'FullyGraded',
      timestamp: results?.gradedAt,
    });
    expect(platform.grades.lineItems(CONTEXT)).toEqual([expect.objectContaining({ resourceId: 'hello', label: 'Hello', scoreMaximum: 5 })]);
    expect(deliveryOf(deliveries, 'hello', world.users.student)).toMatchObject({ state: 'sent', attempts: [{ status: 204 }] });
  });

  it('sends each TA grade saved, pending manual grading until the rubric is done; a student who never launched is skipped', async () => {
    const first = await grade(world.users.student, 0, 3);
    expect(first.json.status, first.text).toBe('success');
    await settledDeliveries((all) => deliveryOf(all, 'essay', world.users.student)?.state === 'sent');
    expect(platform.grades.scoreOf(CONTEXT, 'essay', sub(world.users.student))).toMatchObject({
      scoreGiven: 3,
      scoreMaximum: 10,
      activityProgress: 'Completed',
      gradingProgress: 'PendingManual',
    });
    const second = await grade(world.users.student, 1, 4);
    expect(second.json.status, second.text).toBe('success');
    let deliveries = await settledDeliveries((all) => deliveryOf(all, 'essay', world.users.student)?.lastSent?.scoreGiven === 7);
    expect(platform.grades.scoreOf(CONTEXT, 'essay', sub(world.users.student))).toMatchObject({
      scoreGiven: 7,
      gradingProgress: 'FullyGraded',
      timestamp: deliveryOf(deliveries, 'essay', world.users.student)!.gradedAt,
    });

    expect((await grade(student3, 0, 2)).json.status).toBe('success');
    deliveries = await settledDeliveries((all) => deliveryOf(all, 'essay', student3) !== undefined);
    expect(deliveryOf(deliveries, 'essay', student3)).toMatchObject({
      state: 'skipped',
      reason: expect.stringContaining('has not opened the tool from the LMS yet'),
      attempts: [],
    });
  });

  it('retries 429 (after its Retry-After) and 500 answers until the platform takes the score', async () => {
    platform.grades.failNext(2, 429, '1');
    expect((await grade(world.users.student2, 0, 1)).json.status).toBe('success');
    let deliveries = await settledDeliveries((all) => deliveryOf(all, 'essay', world.users.student2) !== undefined);
    let delivery = deliveryOf(deliveries, 'essay', world.users.student2)!;
    // The line item was found first: the two 429s fell on the score.
    // Each retry waited the platform's Retry-After (1 s), longer than the schedule's 0.2 s.
    expect(delivery).toMatchObject({
      state: 'sent',
      attempts: [{ status: 429, retryInSeconds: 1 }, { status: 429, retryInSeconds: 1 }, { status: 204 }],
    });
    expect(platform.grades.scoreOf(CONTEXT, 'essay', sub(world.users.student2))).toMatchObject({ scoreGiven: 1 });

    platform.grades.failNext(1, 500);
    expect((await grade(world.users.student2, 1, 2)).json.status).toBe('success');
    deliveries = await settledDeliveries((all) => deliveryOf(all, 'essay', world.users.student2)?.lastSent?.scoreGiven === 3);
    delivery = deliveryOf(deliveries, 'essay', world.users.student2)!;
    expect(delivery.attempts.slice(delivery.roundStart)).toMatchObject([{ status: 500, retryInSeconds: 0.2 }, { status: 204 }]);
    expect(platform.grades.scoreOf(CONTEXT, 'essay', sub(world.users.student2))).toMatchObject({ scoreGiven: 3 });
  });

  it('keeps a refusal for one student as failed, with the platform’s words, and sends the others', async () => {
    platform.grades.refuseUser(sub(world.users.student));
    try {
      expect((await grade(world.users.student, 0, 5, 2)).json.status).toBe('success');
      expect((await grade(world.users.student2, 0, 5, 2)).json.status).toBe('success');
      const deliveries = await settledDeliveries(
        (all) =>
          deliveryOf(all, 'essay', world.users.student2)?.lastSent?.scoreGiven === 7 &&
          deliveryOf(all, 'essay', world.users.student)?.state !== 'sent',
      );
      expect(deliveryOf(deliveries, 'essay', world.users.student)).toMatchObject({
        state: 'failed',
        reason: expect.stringContaining('HTTP 422'),
      });
      expect(deliveryOf(deliveries, 'essay', world.users.student)!.reason).toContain('not a student');
      expect(platform.grades.scoreOf(CONTEXT, 'essay', sub(world.users.student2))).toMatchObject({ scoreGiven: 7 });
    } finally {
      platform.grades.refuseUser(undefined);
    }
  });

  it('never overwrites a newer grade with an older one, and sends a grade reaching the queue twice once', async () => {
    const held = platform.grades.scoreOf(CONTEXT, 'essay', sub(world.users.student2))!;
    let posts = platform.grades.scorePosts;
    const linked = { ...world.course, ltiScoreLinks: 1 };
    // An older grade's entry, as a delayed copy would arrive: nothing is sent.
    const older = new Date(Date.parse(held.timestamp) - 60_000);
    await transactWrite(ltiScoreOutbox(linked, { gradeableId: 'essay', ownerId: world.users.student2.userId, gradedAt: older }));
    await settledDeliveries();
    expect(platform.grades.scoreOf(CONTEXT, 'essay', sub(world.users.student2))).toEqual(held);
    expect(platform.grades.scorePosts).toBe(posts);
    // A newer change's entry is sent; the same entry relayed again (a relay that failed to remove it) is not.
    const entry = ltiScoreOutbox(linked, { gradeableId: 'essay', ownerId: world.users.student2.userId, gradedAt: new Date() });
    await transactWrite(entry);
    await settledDeliveries();
    expect(platform.grades.scorePosts).toBe(++posts);
    await transactWrite(entry);
    await settledDeliveries();
    await api.server.ltiScoreQueue.idle();
    expect(platform.grades.scorePosts).toBe(posts);
  });

  it('sends both of two changes of one grade in the same millisecond', async () => {
    const posts = platform.grades.scorePosts;
    const linked = { ...world.course, ltiScoreLinks: 1 };
    const at = new Date();
    const grade = { gradeableId: 'essay', ownerId: world.users.student2.userId, gradedAt: at };
    const first = ltiScoreOutbox(linked, grade);
    const second = ltiScoreOutbox(linked, grade);
    await transactWrite(first);
    await settledDeliveries();
    expect(platform.grades.scorePosts).toBe(posts + 1);
    // The second change was written after the first was sent: its total is sent too, with the same time.
    await transactWrite(second);
    await settledDeliveries();
    expect(platform.grades.scorePosts).toBe(posts + 2);
    expect(platform.grades.scoreOf(CONTEXT, 'essay', sub(world.users.student2))?.timestamp).toBe(at.toISOString());
  });

  it('writes the entry for the LMS exactly when the grade is written: of two saves racing, the one cancelled writes none (20 rounds)', async () => {
    const entriesFor = async (user: TestUser) =>
      (await outboxEntries(500)).entries.filter(
        (entry) => entry.queue === 'lti-scores' && entry.body.includes(`"ownerId":"${user.userId}"`),
      ).length;
    for (let round = 0; round < 20; round++) {
      const before = await entriesFor(student3);
      const answers = await Promise.all([grade(student3, 1, round % 5), grade(student3, 1, (round + 1) % 5)]);
      const saved = answers.filter((answer) => answer.json.status === 'success').length;
      expect(saved, answers.map((answer) => answer.text).join('\n')).toBeGreaterThanOrEqual(1);
      // Each save written wrote its entry with it; a save cancelled by the other wrote none.
      expect(await entriesFor(student3), `round ${round}`).toBe(before + saved);
    }
    await settledDeliveries();
  });
});

describe('totals that change without a new grade', () => {
  const choose = (version: number) =>
    api.postForm(`${base}/gradeable/hello/version`, { version: String(version) }, { ...world.tokens.student, Prefer: 'http-status' });

  it('sends the total of the version made active (or of none, once cancelled), timestamped with the change', async () => {
    await git.push('hello-student', { 'hello.sh': 'echo "Goodbye"\n' });
    const submitted = await api.postForm(
      `${base}/gradeable/hello/upload`,
      { vcs_checkout: 'true', git_repo_id: 'x' },
      world.tokens.student,
    );
    expect(submitted.json.status, submitted.text).toBe('success');
    await settledDeliveries((all) => deliveryOf(all, 'hello', world.users.student)?.lastSent?.scoreGiven === 0);
    const graded = platform.grades.scoreOf(CONTEXT, 'hello', sub(world.users.student))!;
    expect(graded).toMatchObject({ scoreGiven: 0, scoreMaximum: 5 });

    const before = new Date().toISOString();
    const chosen = await choose(1);
    expect(chosen.json.status, chosen.text).toBe('success');
    const after = new Date().toISOString();
    await settledDeliveries((all) => deliveryOf(all, 'hello', world.users.student)?.lastSent?.scoreGiven === 5);
    const shown = platform.grades.scoreOf(CONTEXT, 'hello', sub(world.users.student))!;
    expect(shown).toMatchObject({ scoreGiven: 5, gradingProgress: 'FullyGraded' });
    expect(shown.timestamp >= before && shown.timestamp <= after, `${before} ≤ ${shown.timestamp} ≤ ${after}`).toBe(true);
    expect(shown.timestamp > graded.timestamp).toBe(true);

    const cancelled = await choose(0);
    expect(cancelled.json.status, cancelled.text).toBe('success');
    await settledDeliveries((all) => deliveryOf(all, 'hello', world.users.student)?.lastSent?.scoreGiven === 0);
    const none = platform.grades.scoreOf(CONTEXT, 'hello', sub(world.users.student))!;
    expect(none.scoreGiven).toBe(0);
    expect(none.timestamp > shown.timestamp).toBe(true);
    expect((await choose(1)).json.status).toBe('success');
    await settledDeliveries((all) => deliveryOf(all, 'hello', world.users.student)?.lastSent?.scoreGiven === 5);
  });

  it('sends the total a finished regrade gives, timestamped with the regrade', async () => {
    const held = platform.grades.scoreOf(CONTEXT, 'hello', sub(world.users.student))!;
    // The instructor adds a test case that version 1 passes: regraded, it has 8 of 8.
    const downloaded = await api.get(`${base}/hello/download`, world.tokens.instructor);
    const fixed = { ...downloaded.json.data, autograding: { ...downloaded.json.data.autograding, test_cases: [greets(5), runs(3)] } };
    const replaced = await api.call('PUT', `${base}/gradeable/hello`, {
      headers: { 'Content-Type': 'application/json', 'If-Match': downloaded.headers.get('etag') ?? '', ...world.tokens.instructor },
      body: JSON.stringify(fixed),
    });
    expect(replaced.json.status, replaced.text).toBe('success');
    const regraded = await api.postForm(
      `${base}/gradeable/hello/regrade`,
      { user_id: world.users.student.userId },
      world.tokens.instructor,
    );
    expect(regraded.json.status, regraded.text).toBe('success');
    const deliveries = await settledDeliveries((all) => deliveryOf(all, 'hello', world.users.student)?.lastSent?.scoreGiven === 8);
    const { results } = await getItems({
      results: recordedResultsRef(gradeableKey(world.course.term, world.course.course, 'hello'), world.users.student.userId, 1),
    });
    const shown = platform.grades.scoreOf(CONTEXT, 'hello', sub(world.users.student))!;
    expect(shown).toMatchObject({ scoreGiven: 8, scoreMaximum: 8, gradingProgress: 'FullyGraded', timestamp: results?.gradedAt });
    expect(shown.timestamp > held.timestamp).toBe(true);
    expect(deliveryOf(deliveries, 'hello', world.users.student)?.gradedAt).toBe(shown.timestamp);
  });
});

describe('an autograde that fails', () => {
  // A force-push takes a version's commit out of the repository: that version's regrade fails.
  const path = () => `${base}/gradeable/rewritten`;
  beforeAll(async () => {
    await uploadGradeable(
      api,
      world,
      selfHostedGradeableJson('rewritten', `${git.url}/{$gradeable_id}-student.git`, { autograding: { test_cases: [greets(5)] } }),
    );
  });

  const student = () => world.users.student;
  const states = async () =>
    (
      (await api.get(`${base}/gradeable/rewritten/attempts?user_id=${student().userId}`, world.tokens.instructor)).json.data as {
        version: number;
        grading_state: string;
      }[]
    ).map((attempt) => `${attempt.version} ${attempt.grading_state}`);
  async function until(expected: string) {
    for (let poll = 0; poll < 600; poll++) {
      if ((await states())[0] === expected) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`not ${expected} in time: ${(await states()).join(', ')}`);
  }
  async function submit(version: number) {
    const answer = await api.postForm(`${path()}/upload`, { vcs_checkout: 'true', git_repo_id: 'x' }, world.tokens.student);
    expect(answer.json.status, answer.text).toBe('success');
    await until(`${version} graded`);
  }
  async function failByRegrade(version: number) {
    await git.push(
      'rewritten-student',
      { 'hello.sh': `echo "Hello, World!" # rewritten after version ${version}\n` },
      { replaceHistory: true },
    );
    const answer = await api.postForm(
      `${path()}/regrade`,
      { user_id: student().userId, version_to_regrade: String(version) },
      world.tokens.instructor,
    );
    expect(answer.json.status, answer.text).toBe('success');
    await until(`${version} failed`);
  }
  const gradedAt = async (version: number) =>
    (
      await getItems({
        results: recordedResultsRef(gradeableKey(world.course.term, world.course.course, 'rewritten'), student().userId, version),
      })
    ).results?.gradedAt;
  const held = () => platform.grades.scoreOf(CONTEXT, 'rewritten', sub(student()));

  it('tells the LMS the grading failed, without a score, timestamped with the failure; the next version sends its grade', async () => {
    await submit(1);
    await settledDeliveries((all) => deliveryOf(all, 'rewritten', student())?.lastSent?.scoreGiven === 5);
    expect(held()).toMatchObject({ scoreGiven: 5, gradingProgress: 'FullyGraded', timestamp: await gradedAt(1) });

    const before = new Date().toISOString();
    await failByRegrade(1);
    const after = new Date().toISOString();
    const deliveries = await settledDeliveries((all) => deliveryOf(all, 'rewritten', student())?.lastSent?.gradingProgress === 'Failed');
    const failed = held()!;
    // No scoreGiven: the LMS clears version 1's score of 5, which is no longer this version's grade.
    expect(failed).toEqual({
      userId: sub(student()),
      activityProgress: 'Completed',
      gradingProgress: 'Failed',
      timestamp: deliveryOf(deliveries, 'rewritten', student())!.gradedAt,
    });
    expect(failed.timestamp >= before && failed.timestamp <= after, `${before} ≤ ${failed.timestamp} ≤ ${after}`).toBe(true);
    const listed = await api.get(`${base}/lti/scores?gradeable_id=rewritten`, world.tokens.instructor);
    expect(listed.json.data, listed.text).toMatchObject([
      { user_id: student().userId, state: 'sent', sent: { score_given: null, score_maximum: null, grading_progress: 'Failed' } },
    ]);

    await submit(2);
    await settledDeliveries((all) => deliveryOf(all, 'rewritten', student())?.lastSent?.gradingProgress === 'FullyGraded');
    expect(held()).toMatchObject({ scoreGiven: 5, scoreMaximum: 5, gradingProgress: 'FullyGraded', timestamp: await gradedAt(2) });
    expect(held()!.timestamp > failed.timestamp).toBe(true);
  });

  it('ends with the success at the LMS when a newer version is graded before the failure was sent', async () => {
    await failByRegrade(2);
    await submit(3);
    // Neither was relayed yet: the failure's entry and the grade's go out together.
    const graded = await gradedAt(3);
    await settledDeliveries((all) => deliveryOf(all, 'rewritten', student())?.gradedAt === graded);
    expect(held()).toMatchObject({ scoreGiven: 5, gradingProgress: 'FullyGraded', timestamp: graded });
  });
});

describe('totals that late days change', () => {
  // Due twelve days ago, two late days allowed: each student's submission came a day late.
  beforeAll(async () => {
    await uploadGradeable(api, world, {
      ...vcsGradeableJson('late', { dueInDays: -12, lateDays: 2 }),
      autograding: { test_cases: [runs(10)] },
    });
    for (const user of [world.users.student, world.users.student2]) {
      await putGradedSubmission({
        ...world.course,
        gradeableId: 'late',
        userId: user.userId,
        points: 10,
        daysLate: 1,
        submittedDaysFromNow: -11,
        withResults: true,
      });
      await transactWrite(
        ltiScoreOutbox({ ...world.course, ltiScoreLinks: 1 }, { gradeableId: 'late', ownerId: user.userId, gradedAt: new Date() }),
      );
      // Each student's first delivery settled before the next: the test starts from scores the LMS holds.
      await settledDeliveries((all) => deliveryOf(all, 'late', user)?.lastSent !== undefined);
    }
  }, 60_000);

  const grant = (user: TestUser, days: number) =>
    api.postJson(
      `${base}/late-days/${user.userId}`,
      { allowed_late_days: days, since: daysFromNow(-30).slice(0, 10) },
      { ...world.tokens.instructor, Prefer: 'http-status' },
    );

  it('sends the total a grant of late days changes, timestamped with the grant, and nothing for a grant that changes no total', async () => {
    // Without late days a day late is too late: the gradebook shows 0.
    expect(platform.grades.scoreOf(CONTEXT, 'late', sub(world.users.student))).toMatchObject({ scoreGiven: 0, scoreMaximum: 10 });
    const posts = platform.grades.scorePosts;
    const before = new Date().toISOString();
    const granted = await grant(world.users.student, 1);
    expect(granted.json.status, granted.text).toBe('success');
    const after = new Date().toISOString();
    await settledDeliveries((all) => deliveryOf(all, 'late', world.users.student)?.lastSent?.scoreGiven === 10);
    const shown = platform.grades.scoreOf(CONTEXT, 'late', sub(world.users.student))!;
    expect(shown.scoreGiven).toBe(10);
    expect(shown.timestamp >= before && shown.timestamp <= after, `${before} ≤ ${shown.timestamp} ≤ ${after}`).toBe(true);
    // The student's other scores and the other student's did not change: one score posted.
    expect(platform.grades.scorePosts).toBe(posts + 1);
    expect(platform.grades.scoreOf(CONTEXT, 'late', sub(world.users.student2))).toMatchObject({ scoreGiven: 0 });

    const more = await grant(world.users.student, 2);
    expect(more.json.status, more.text).toBe('success');
    await settledDeliveries();
    expect(platform.grades.scorePosts).toBe(posts + 1);
    expect(platform.grades.scoreOf(CONTEXT, 'late', sub(world.users.student))).toEqual(shown);
  });

  it("sends every student's total the course's late days change, and nothing to those whose total stays, a page at a time", async () => {
    // More deliveries than a page, ahead of the late gradeable's: of gradeables since deleted, sending nothing.
    const [anyDelivery] = await scoreDeliveriesOf(world.course.term, world.course.course);
    for (let index = 0; index < TOTALS_PAGE + 5; index++) {
      const id = {
        gradeableId: `gone-${index}`,
        userId: world.users.student.userId,
        registrationId: anyDelivery!.registrationId,
        contextId: CONTEXT,
      };
      expect(await putScoreDelivery(sentAMinuteAgo(id, sub(world.users.student)), undefined)).toBe(true);
    }
    const posts = platform.grades.scorePosts;
    const kept = platform.grades.scoreOf(CONTEXT, 'late', sub(world.users.student));
    await setLateDayBudget(api, world, 1);
    await settledDeliveries((all) => deliveryOf(all, 'late', world.users.student2)?.lastSent?.scoreGiven === 10);
    expect(platform.grades.scoreOf(CONTEXT, 'late', sub(world.users.student2))).toMatchObject({ scoreGiven: 10 });
    expect(platform.grades.scoreOf(CONTEXT, 'late', sub(world.users.student))).toEqual(kept);
    expect(platform.grades.scorePosts).toBe(posts + 1);

    // The same setting through the course's settings route.
    const config = await api.postJson(
      `/courses/${world.course.term}/${world.course.course}/config`,
      { name: 'default_student_late_days', entry: 0 },
      { ...world.tokens.instructor, Prefer: 'http-status' },
    );
    expect(config.json.status, config.text).toBe('success');
    await settledDeliveries((all) => deliveryOf(all, 'late', world.users.student2)?.lastSent?.scoreGiven === 0);
    expect(platform.grades.scoreOf(CONTEXT, 'late', sub(world.users.student2))).toMatchObject({ scoreGiven: 0 });
    expect(platform.grades.scorePosts).toBe(posts + 2);
  });

  it('sends the total an extension changes, timestamped with it, and nothing for an extension that changes no total', async () => {
    // The course's budget is 0 again: student2's day late is too late, and the gradebook shows 0.
    expect(platform.grades.scoreOf(CONTEXT, 'late', sub(world.users.student2))).toMatchObject({ scoreGiven: 0 });
    const extend = (days: number) =>
      api.call('PUT', `${base}/gradeable/late/extensions/${world.users.student2.userId}`, {
        headers: { ...world.tokens.instructor, Prefer: 'http-status', 'Content-Type': 'application/json' },
        body: JSON.stringify({ late_days: days, reason_for_exception: 'Ill' }),
      });
    const posts = platform.grades.scorePosts;
    const before = new Date().toISOString();
    const extended = await extend(1);
    expect(extended.json.status, extended.text).toBe('success');
    await settledDeliveries((all) => deliveryOf(all, 'late', world.users.student2)?.lastSent?.scoreGiven === 10);
    const shown = platform.grades.scoreOf(CONTEXT, 'late', sub(world.users.student2))!;
    expect(shown.scoreGiven).toBe(10);
    expect(shown.timestamp >= before, `${before} ≤ ${shown.timestamp}`).toBe(true);
    expect(platform.grades.scorePosts).toBe(posts + 1);

    // A longer extension changes no total: nothing more is sent.
    expect((await extend(3)).json.status).toBe('success');
    await settledDeliveries();
    expect(platform.grades.scorePosts).toBe(posts + 1);
  });
});

describe('totals that a gradeable’s replacement changes', () => {
  /** The gradeable replaced by the instructor with its downloaded JSON, `change`d: the answer, and the times around it. */
  const replace = async (gradeableId: string, change: (data: Record<string, Record<string, unknown>>) => Record<string, unknown>) => {
    const downloaded = await api.get(`${base}/${gradeableId}/download`, world.tokens.instructor);
    expect(downloaded.json.status, downloaded.text).toBe('success');
    const before = new Date().toISOString();
    const replaced = await api.call('PUT', `${base}/gradeable/${gradeableId}`, {
      headers: { 'Content-Type': 'application/json', 'If-Match': downloaded.headers.get('etag') ?? '', ...world.tokens.instructor },
      body: JSON.stringify(change(downloaded.json.data as Record<string, Record<string, unknown>>)),
    });
    expect(replaced.json.status, replaced.text).toBe('success');
    return { before, after: new Date().toISOString() };
  };
  const ltiEntries = async () => (await outboxEntries(500)).entries.filter((entry) => entry.queue === 'lti-scores');

  it('sends each student’s score out of the new points, timestamped with the replacement; a change of its title sends nothing', async () => {
    const [anyDelivery] = await settledDeliveries();
    // More deliveries of the gradeable than a page, ahead of the students' (by their entries): to an
    // LMS course no longer linked, sending nothing.
    for (let index = 0; index < TOTALS_PAGE + 5; index++) {
      const id = { gradeableId: 'late', userId: `0-filler-${index}`, registrationId: anyDelivery!.registrationId, contextId: 'unlinked' };
      expect(await putScoreDelivery(sentAMinuteAgo(id, `lms-${id.userId}`), undefined)).toBe(true);
    }
    // Each student's late submission is in budget (a grant; an extension): 10 of 10.
    for (const user of [world.users.student, world.users.student2]) {
      expect(platform.grades.scoreOf(CONTEXT, 'late', sub(user))).toMatchObject({ scoreGiven: 10, scoreMaximum: 10 });
    }
    const column = () => platform.grades.lineItems(CONTEXT).filter((item) => item.resourceId === 'late');
    const [columnBefore] = column();
    expect(columnBefore).toMatchObject({ scoreMaximum: 10 });
    const posts = platform.grades.scorePosts;
    const { before, after } = await replace('late', (data) => ({ ...data, autograding: { ...data.autograding, test_cases: [runs(12)] } }));
    // One entry, for this gradeable's deliveries alone.
    expect((await ltiEntries()).map((entry) => JSON.parse(entry.body))).toMatchObject([
      { kind: 'totals', cause: 'gradeable', gradeableId: 'late' },
    ]);
    await settledDeliveries((all) =>
      [world.users.student, world.users.student2].every((user) => deliveryOf(all, 'late', user)?.lastSent?.scoreMaximum === 12),
    );
    for (const user of [world.users.student, world.users.student2]) {
      const shown = platform.grades.scoreOf(CONTEXT, 'late', sub(user))!;
      expect(shown).toMatchObject({ scoreGiven: 10, scoreMaximum: 12 });
      expect(shown.timestamp >= before && shown.timestamp <= after, `${before} ≤ ${shown.timestamp} ≤ ${after}`).toBe(true);
    }
    expect(platform.grades.scorePosts).toBe(posts + 2);
    // The LMS's column is out of the new points too, its other fields as the LMS had them: a score of
    // 10 out of 12 in a column of 10 would show as 8.3 of 10.
    expect(column()).toEqual([{ ...columnBefore, scoreMaximum: 12 }]);

    await replace('late', (data) => ({ ...data, title: 'Late homework' }));
    expect(await ltiEntries()).toEqual([]);
    await settledDeliveries();
    expect(platform.grades.scorePosts).toBe(posts + 2);
  });

  it('sends the totals its late days allowed change, over the course, and nothing to a student whose total stays', async () => {
    const kept = platform.grades.scoreOf(CONTEXT, 'late', sub(world.users.student2));
    const posts = platform.grades.scorePosts;
    // No late day allowed: the student's day late (in their granted budget) is too late; student2's extension still covers theirs.
    const { before, after } = await replace('late', (data) => ({ ...data, dates: { ...data.dates, late_days: 0 } }));
    const [entry] = (await ltiEntries()).map((written) => JSON.parse(written.body));
    expect(entry).toMatchObject({ kind: 'totals', cause: 'gradeable' });
    expect(entry).not.toHaveProperty('gradeableId');
    await settledDeliveries((all) => deliveryOf(all, 'late', world.users.student)?.lastSent?.scoreGiven === 0);
    const shown = platform.grades.scoreOf(CONTEXT, 'late', sub(world.users.student))!;
    expect(shown).toMatchObject({ scoreGiven: 0, scoreMaximum: 12 });
    expect(shown.timestamp >= before && shown.timestamp <= after, `${before} ≤ ${shown.timestamp} ≤ ${after}`).toBe(true);
    expect(platform.grades.scoreOf(CONTEXT, 'late', sub(world.users.student2))).toEqual(kept);
    expect(platform.grades.scorePosts).toBe(posts + 1);
  });

  it('sends nothing for a change of the course’s time zone, which changes no total (dates are instants)', async () => {
    await settledDeliveries();
    const totals = async () => {
      const answer = await api.get(`${base}/gradebook`, world.tokens.instructor);
      expect(answer.json.status, answer.text).toBe('success');
      const { students } = answer.json.data as { students: { user_id: string; gradeables: unknown[] }[] };
      return students.map((row) => [row.user_id, row.gradeables]);
    };
    const setZone = async (zone: string) => {
      const answer = await api.postJson(
        `/courses/${world.course.term}/${world.course.course}/config`,
        { name: 'timezone', entry: zone },
        { ...world.tokens.instructor, Prefer: 'http-status' },
      );
      expect(answer.json.status, answer.text).toBe('success');
    };
    const settings = await api.get(`/courses/${world.course.term}/${world.course.course}/config`, world.tokens.instructor);
    const zone = (settings.json.data as { config: { timezone: string } }).config.timezone;
    const shown = await totals();
    const posts = platform.grades.scorePosts;
    await setZone(zone === 'Pacific/Kiritimati' ? 'Pacific/Pago_Pago' : 'Pacific/Kiritimati');
    expect(await ltiEntries()).toEqual([]);
    expect(await totals()).toEqual(shown);
    await setZone(zone);
    await settledDeliveries();
    expect(platform.grades.scorePosts).toBe(posts);
  });
  it('reads a message queued under the kind it had before, late-days, as a totals message', async () => {
    const held = deliveryOf(await settledDeliveries(), 'late', world.users.student2)!;
    const shown = platform.grades.scoreOf(CONTEXT, 'late', sub(world.users.student2))!;
    // As if the LMS held another score: the message finds the total shown differs, and sends it.
    expect(await putScoreDelivery({ ...held, lastSent: { ...held.lastSent!, scoreGiven: 3 } }, held)).toBe(true);
    const message = {
      kind: 'late-days',
      term: world.course.term,
      course: world.course.course,
      userId: world.users.student2.userId,
      changedAt: new Date().toISOString(),
      changeId: randomUUID(),
    } as const;
    await transactWrite([
      outboxPut({ messageId: ltiMessageId(message), body: JSON.stringify(message), recordedAt: message.changedAt, queue: LTI_SCORE_QUEUE }),
    ]);
    const posts = platform.grades.scorePosts;
    await settledDeliveries((all) => deliveryOf(all, 'late', world.users.student2)?.lastSent?.timestamp === message.changedAt);
    expect(platform.grades.scoreOf(CONTEXT, 'late', sub(world.users.student2))).toEqual({ ...shown, timestamp: message.changedAt });
    expect(platform.grades.scorePosts).toBe(posts + 1);
  });
});

describe('after npm start stops', () => {
  it('sends again every delivery left pending: a grade claimed and not sent yet, and one waiting for its retry', async () => {
    const deliveries = await settledDeliveries();
    const essay = deliveryOf(deliveries, 'essay', world.users.student2)!;
    const hello = deliveryOf(deliveries, 'hello', world.users.student)!;
    expect([essay.state, hello.state]).toEqual(['sent', 'sent']);
    // As a stopped server leaves them: written, their messages gone with its in-process queue.
    const now = new Date();
    const claimed: ScoreDelivery = {
      ...essay,
      state: 'pending',
      gradedAt: now.toISOString(),
      changeIds: ['before-the-stop'],
      roundStart: essay.attempts.length,
      nextAttemptAt: null,
      updatedAt: now.toISOString(),
    };
    const waiting: ScoreDelivery = {
      ...hello,
      state: 'pending',
      gradedAt: now.toISOString(),
      changeIds: ['before-the-stop'],
      roundStart: hello.attempts.length,
      attempts: [...hello.attempts, { at: now.toISOString(), status: 500, error: 'HTTP 500', retryInSeconds: 1 }],
      reason: 'HTTP 500',
      nextAttemptAt: new Date(now.getTime() + 1_000).toISOString(),
      updatedAt: now.toISOString(),
    };
    expect(await putScoreDelivery(claimed, essay)).toBe(true);
    expect(await putScoreDelivery(waiting, hello)).toBe(true);

    const resumed = await resumeQueues(api.server, 0);
    expect(resumed.ltiScores).toBe(2);
    const after = await settledDeliveries(
      (all) =>
        deliveryOf(all, 'essay', world.users.student2)?.state === 'sent' && deliveryOf(all, 'hello', world.users.student)?.state === 'sent',
    );
    expect(deliveryOf(after, 'essay', world.users.student2)!.attempts).toHaveLength(essay.attempts.length + 1);
    expect(deliveryOf(after, 'hello', world.users.student)!.attempts.slice(-2)).toMatchObject([{ status: 500 }, { status: 204 }]);
    expect(platform.grades.scoreOf(CONTEXT, 'essay', sub(world.users.student2))?.timestamp).toBe(claimed.gradedAt);
    expect(platform.grades.scoreOf(CONTEXT, 'hello', sub(world.users.student))?.timestamp).toBe(waiting.gradedAt);
    expect((await resumeQueues(api.server, 0)).ltiScores).toBe(0);
  });
});
