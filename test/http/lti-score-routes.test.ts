import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { putScoreDelivery, scoreDeliveriesOf, type ScoreDelivery } from '#shared/data/lti-scores.ts';
import { outboxEntries, outboxPut } from '#shared/data/webhook-outbox.ts';
import { transactWrite } from '#shared/data/transactions.ts';
import { ltiScoreEntry } from '#shared/lti/score-queue.ts';
import { createCourse, createCourseWorld, addMember, tokenOf, type CourseWorld } from '../support/courses.ts';
import { startTestApi, type Answer, type TestApi } from '../support/http.ts';
import { createUser, type TestUser } from '../support/users.ts';
import { ROLES, startLtiPlatform, type LtiTestPlatform } from '../support/lti-platform.ts';
import { deliveryOf, launchSession as launchOf, lmsSub, registerPlatform, settledDeliveries } from '../support/lti-sessions.ts';
import { uploadGradeable } from '../support/gradeables.ts';
import { rubricComponent } from '../support/rubric.ts';
import { putGradedSubmission } from '../support/submissions.ts';
import { daysFromNow } from '../support/dates.ts';
import { closeAll } from '../support/allowed-servers.ts';

/**
 * What an instructor sees and does when grades do not reach the LMS, over HTTP against the test
 * platform: the list of score deliveries (by state and gradeable, a page at a time), a delivery
 * replayed once the platform is fixed or the student has launched, and every current grade of a
 * gradeable published again; who may do it, and ids that name no delivery of the course.
 */
const CONTEXT = 'lms-score-routes';
let api: TestApi;
let platform: LtiTestPlatform;
let world: CourseWorld;
let base: string;
let student3: TestUser;
let instructor: Record<string, string>;

const essayDates = () => ({
  ta_view_start_date: daysFromNow(-20),
  submission_open_date: daysFromNow(-19),
  submission_due_date: daysFromNow(-10),
  team_lock_date: daysFromNow(-10),
  grade_start_date: daysFromNow(-9),
  grade_due_date: daysFromNow(-8),
  grade_released_date: daysFromNow(5),
  grade_inquiry_start_date: daysFromNow(5),
  grade_inquiry_due_date: daysFromNow(6),
});

const taGraded = (id: string, title: string) => ({
  id,
  title,
  type: 'Electronic File',
  vcs: { repository_type: 'public-github', vcs_path: 'https://github.com/example/{$gradeable_id}-{$user_id}', vcs_subdirectory: '' },
  ta_grading: true,
  rubric: [rubricComponent('Argument'), rubricComponent('Style')],
  dates: essayDates(),
});

beforeAll(async () => {
  vi.stubEnv('WEBHOOK_RETRY_SCHEDULE', '0.2,0.2');
  api = await startTestApi({ workers: 1, outboxRelayMs: 0 });
  platform = await startLtiPlatform(api.url);
  vi.stubEnv('LTI_FRONTEND_URL', 'http://127.0.0.1:5173/lti');
  vi.stubEnv('LTI_ALLOWED_HOSTS', platform.host);
  world = await createCourseWorld(api);
  base = `/${world.course.term}/${world.course.course}`;
  instructor = { ...world.tokens.instructor, Prefer: 'http-status' };
  student3 = await createUser('user', 'student3');
  await addMember(world.course, student3, 4, '1');
  await registerPlatform(api, world, platform, [...Object.values(world.users), student3]);
  await uploadGradeable(api, world, taGraded('essay', 'Essay'));
  await uploadGradeable(api, world, taGraded('poem', 'Poem'));
  for (const user of [world.users.student, world.users.student2, student3]) {
    await putGradedSubmission({ ...world.course, gradeableId: 'essay', userId: user.userId, points: 0 });
  }
  await putGradedSubmission({ ...world.course, gradeableId: 'poem', userId: world.users.student.userId, points: 0 });
}, 120_000);
afterAll(() => closeAll(platform, api));

const launchSession = (user: TestUser, roles: string[], contextId = CONTEXT) => launchOf(api, platform, user, { roles, contextId });

const sub = lmsSub;

const settled = (done?: (deliveries: ScoreDelivery[]) => boolean) => settledDeliveries(api, world.course, done);

const grade = (gradeableId: string, user: TestUser, componentId: number, points: number) =>
  api.postJson(
    `${base}/gradeable/${gradeableId}/grading/${user.userId}`,
    { component_id: componentId, custom_points: points },
    { ...world.tokens.ta, Prefer: 'http-status' },
  );

interface Listed {
  delivery_id: string;
  gradeable_id: string;
  user_id: string;
  state: string;
  reason: string | null;
  attempts: number;
  last_attempt: { at: string; status: number | null; message: string | null } | null;
  sent: { score_given: number; timestamp: string } | null;
  graded_at: string;
}

const list = async (query = '', headers = instructor): Promise<Listed[]> => {
  const answer = await api.get(`${base}/lti/scores${query}`, headers);
  expect(answer.json.status, answer.text).toBe('success');
  return answer.json.data as Listed[];
};
const listedOf = (rows: readonly Listed[], gradeableId: string, user: TestUser) =>
  rows.find((row) => row.gradeable_id === gradeableId && row.user_id === user.userId);
const replay = (deliveryId: string, headers = instructor): Promise<Answer> =>
  api.postJson(`${base}/lti/scores/${deliveryId}/replay`, {}, headers);
const publish = (gradeableId: string, headers = instructor): Promise<Answer> =>
  api.postJson(`${base}/gradeable/${gradeableId}/lti/publish`, {}, headers);
const ltiEntries = async () => (await outboxEntries(500)).entries.filter((entry) => entry.queue === 'lti-scores');

describe('publishing before any LMS course is linked', () => {
  it('is refused with 409, and writes nothing', async () => {
    const refused = await publish('essay');
    expect(refused.httpStatus, refused.text).toBe(409);
    expect(refused.json.message).toContain('linked to no LMS course that takes scores');
    expect(await ltiEntries()).toEqual([]);
    expect(await scoreDeliveriesOf(world.course.term, world.course.course)).toEqual([]);
    expect((await list()).length).toBe(0);
  });

  it('writes no entry for a gradeable replaced with totals changed', async () => {
    const downloaded = await api.get(`${base}/poem/download`, instructor);
    const data = downloaded.json.data as { dates: { late_days?: number } };
    const replace = async (document: unknown) => {
      const replaced = await api.call('PUT', `${base}/gradeable/poem`, {
        headers: { 'Content-Type': 'application/json', ...instructor },
        body: JSON.stringify(document),
      });
      expect(replaced.json.status, replaced.text).toBe('success');
    };
    // Another late day allowed (every student's totals may change), then as it was.
    await replace({ ...data, dates: { ...data.dates, late_days: (data.dates.late_days ?? 0) + 1 } });
    await replace(data);
    expect(await ltiEntries()).toEqual([]);
  });
});

describe('the score deliveries of a course linked to an LMS course', () => {
  beforeAll(async () => {
    // The instructor links the LMS course from their launch; two students launch, student3 never does.
    const session = await launchSession(world.users.instructor, [ROLES.instructor]);
    const linked = await api.postJson(`${base}/lti/link`, { section: '1' }, session);
    expect(linked.json.status, linked.text).toBe('success');
    for (const user of [world.users.student, world.users.student2]) await launchSession(user, [ROLES.learner]);
    for (const user of [world.users.student, world.users.student2, student3])
      expect((await grade('essay', user, 0, 3)).json.status).toBe('success');
    expect((await grade('poem', world.users.student, 0, 4)).json.status).toBe('success');
    await settled((all) => all.length === 4);
  }, 60_000);

  it('lists each delivery with its state, tries, the platform’s answer and the score sent, and never a token', async () => {
    const answer = await api.get(`${base}/lti/scores`, instructor);
    expect(answer.json.status, answer.text).toBe('success');
    const rows = answer.json.data as Listed[];
    expect(rows).toHaveLength(4);
    expect(listedOf(rows, 'essay', world.users.student)).toMatchObject({
      state: 'sent',
      reason: null,
      attempts: 1,
      last_attempt: { status: 204, message: null },
      sent: { score_given: 3, score_maximum: 10, activity_progress: 'Completed', grading_progress: 'PendingManual' },
      registration_id: expect.stringMatching(/^lti_/),
      context_id: CONTEXT,
    });
    expect(listedOf(rows, 'essay', world.users.student)!.sent!.timestamp).toBe(listedOf(rows, 'essay', world.users.student)!.graded_at);
    expect(listedOf(rows, 'essay', student3)).toMatchObject({
      state: 'skipped',
      reason: expect.stringContaining('has not opened the tool from the LMS yet'),
      attempts: 0,
      last_attempt: null,
      sent: null,
    });
    expect(answer.text).not.toMatch(/token|Bearer|secret/i);
    // The superuser reads it too; the list is the same.
    const su = { Authorization: await tokenOf(api, world.users.superuser), Prefer: 'http-status' };
    expect((await list('', su)).map((row) => row.delivery_id)).toEqual(rows.map((row) => row.delivery_id));
  });

  it('filters by state and by gradeable, and refuses a state or gradeable id that cannot be', async () => {
    expect((await list('?state=skipped')).map((row) => row.user_id)).toEqual([student3.userId]);
    expect((await list('?state=failed')).length).toBe(0);
    expect((await list('?gradeable_id=poem')).map((row) => [row.gradeable_id, row.user_id])).toEqual([
      ['poem', world.users.student.userId],
    ]);
    expect((await list('?gradeable_id=essay&state=sent')).map((row) => row.user_id).sort()).toEqual(
      [world.users.student.userId, world.users.student2.userId].sort(),
    );
    expect(await list('?gradeable_id=nothing')).toEqual([]);
    const badState = await api.get(`${base}/lti/scores?state=lost`, instructor);
    expect([badState.httpStatus, badState.json.message]).toEqual([400, 'The state must be sent, failed, skipped or pending.']);
    const badGradeable = await api.get(`${base}/lti/scores?gradeable_id=${encodeURIComponent('"],[')}`, instructor);
    expect(badGradeable.httpStatus, badGradeable.text).toBe(404);
  });

  it('pages with page_size and cursor, each page naming the next in a Link header, and refuses another list’s cursor', async () => {
    const whole = (await list()).map((row) => row.delivery_id);
    const paged: string[] = [];
    let next: string | undefined = `/api${base}/lti/scores?page_size=1`;
    let cursorOfEssay: string | undefined;
    for (let page = 0; next && page < 10; page++) {
      const answer = await api.get(next.replace(/^\/api/, ''), instructor);
      expect(answer.json.status, answer.text).toBe('success');
      expect(answer.json.data).toHaveLength(1);
      paged.push(...(answer.json.data as Listed[]).map((row) => row.delivery_id));
      next = /^<([^>]+)>; rel="next"$/.exec(answer.headers.get('link') ?? '')?.[1];
      if ((answer.json.data as Listed[])[0]!.gradeable_id === 'essay')
        cursorOfEssay ??= new URL(next ?? '', api.url).searchParams.get('cursor') ?? undefined;
    }
    expect(paged).toEqual(whole);
    const filtered = await api.get(`${base}/lti/scores?state=sent&page_size=2`, instructor);
    expect(filtered.json.data).toHaveLength(2);
    expect(filtered.headers.get('link')).toContain('state=sent');
    // A cursor of an essay delivery, given to the poem's list.
    const foreign = await api.get(`${base}/lti/scores?gradeable_id=poem&cursor=${cursorOfEssay}`, instructor);
    expect([foreign.httpStatus, foreign.json.message]).toEqual([400, 'The cursor is not one this score delivery list gave out.']);
  });

  it('keeps a 422 for one student as failed with the platform’s words; replayed once the platform is fixed, it is sent and the LMS shows it', async () => {
    platform.grades.refuseUser(sub(world.users.student));
    try {
      expect((await grade('essay', world.users.student, 1, 4)).json.status).toBe('success');
      await settled((all) => deliveryOf(all, 'essay', world.users.student)?.state === 'failed');
    } finally {
      platform.grades.refuseUser(undefined);
    }
    const [failed] = await list('?state=failed');
    expect(failed).toMatchObject({
      user_id: world.users.student.userId,
      gradeable_id: 'essay',
      reason: expect.stringContaining('not a student'),
      last_attempt: { status: 422, message: expect.stringContaining('HTTP 422') },
      sent: { score_given: 3 },
    });
    expect(platform.grades.scoreOf(CONTEXT, 'essay', sub(world.users.student))).toMatchObject({ scoreGiven: 3 });

    const replayed = await replay(failed!.delivery_id);
    expect(replayed.json.status, replayed.text).toBe('success');
    expect(replayed.json.data).toMatchObject({
      delivery_id: failed!.delivery_id,
      state: 'pending',
      reason: null,
      attempts: failed!.attempts,
    });
    const deliveries = await settled((all) => deliveryOf(all, 'essay', world.users.student)?.state === 'sent');
    const delivery = deliveryOf(deliveries, 'essay', world.users.student)!;
    expect(delivery.attempts.slice(delivery.roundStart)).toMatchObject([{ status: 204 }]);
    expect(platform.grades.scoreOf(CONTEXT, 'essay', sub(world.users.student))).toMatchObject({
      scoreGiven: 7,
      gradingProgress: 'FullyGraded',
      timestamp: delivery.gradedAt,
    });
    expect(listedOf(await list(), 'essay', world.users.student)).toMatchObject({ state: 'sent', sent: { score_given: 7 } });
  });

  it('sends a skipped delivery once the student has launched, when replayed', async () => {
    const skipped = listedOf(await list('?state=skipped'), 'essay', student3)!;
    await launchSession(student3, [ROLES.learner]);
    expect((await replay(skipped.delivery_id)).json.status).toBe('success');
    await settled((all) => deliveryOf(all, 'essay', student3)?.state === 'sent');
    expect(platform.grades.scoreOf(CONTEXT, 'essay', sub(student3))).toMatchObject({ scoreGiven: 3, userId: sub(student3) });
  });

  it('sends a sent delivery once more when replayed; refuses one whose next try is queued; of two replays at once, one wins', async () => {
    const sent = listedOf(await list(), 'poem', world.users.student)!;
    let posts = platform.grades.scorePosts;
    expect((await replay(sent.delivery_id)).json.status).toBe('success');
    await settled((all) => deliveryOf(all, 'poem', world.users.student)?.attempts.length === sent.attempts + 1);
    expect(platform.grades.scorePosts).toBe(posts + 1);
    expect(listedOf(await list(), 'poem', world.users.student)).toMatchObject({ state: 'sent', attempts: sent.attempts + 1 });

    // Replayed while the queue holds its try back: pending, and a second replay is refused.
    api.server.ltiScoreQueue.pause();
    try {
      expect((await replay(sent.delivery_id)).json.status).toBe('success');
      const waiting = listedOf(await list('?state=pending'), 'poem', world.users.student)!;
      expect(waiting).toMatchObject({ state: 'pending', attempts: sent.attempts + 1 });
      const entries = (await ltiEntries()).length;
      const busy = await replay(sent.delivery_id);
      expect([busy.httpStatus, busy.json.message]).toEqual([
        409,
        'This score delivery is being sent (its next try is queued); it can be replayed once it is sent, failed or skipped, or its try is an hour overdue.',
      ]);
      expect(listedOf(await list(), 'poem', world.users.student)).toEqual(waiting);
      expect((await ltiEntries()).length).toBe(entries);
    } finally {
      api.server.ltiScoreQueue.resume();
    }
    await settled((all) => deliveryOf(all, 'poem', world.users.student)?.attempts.length === sent.attempts + 2);
    expect(platform.grades.scorePosts).toBe(posts + 2);

    // Two replays of a failed delivery at once: one restarts it, the other is told it changed (or is pending), and one score is sent.
    platform.grades.refuseUser(sub(world.users.student2));
    try {
      expect((await grade('essay', world.users.student2, 1, 1)).json.status).toBe('success');
      await settled((all) => deliveryOf(all, 'essay', world.users.student2)?.state === 'failed');
    } finally {
      platform.grades.refuseUser(undefined);
    }
    const failed = listedOf(await list('?state=failed'), 'essay', world.users.student2)!;
    posts = platform.grades.scorePosts;
    const answers = await Promise.all([replay(failed.delivery_id), replay(failed.delivery_id)]);
    expect(answers.map((answer) => answer.json.status).sort(), answers.map((answer) => answer.text).join('\n')).toEqual([
      'fail',
      'success',
    ]);
    expect(answers.find((answer) => answer.json.status === 'fail')!.httpStatus).toBe(409);
    await settled((all) => deliveryOf(all, 'essay', world.users.student2)?.state === 'sent');
    expect(platform.grades.scorePosts).toBe(posts + 1);
  }, 60_000);

  it('replays a delivery left pending an hour after its try was due (its message lost), not sooner', async () => {
    const sent = (await settled()).find((delivery) => delivery.state === 'sent');
    // As a try whose message went to the dead-letter queue leaves it: pending, its try due long ago.
    const lost = (minutesAgo: number): ScoreDelivery => ({
      ...sent!,
      state: 'pending',
      nextAttemptAt: new Date(Date.now() - minutesAgo * 60_000).toISOString(),
      updatedAt: new Date(Date.now() - (minutesAgo + 1) * 60_000).toISOString(),
    });
    expect(await putScoreDelivery(lost(30), sent)).toBe(true);
    const early = await replay(sent!.deliveryId);
    expect(early.httpStatus, early.text).toBe(409);
    expect(await putScoreDelivery(lost(61), lost(30))).toBe(true);
    const posts = platform.grades.scorePosts;
    const replayed = await replay(sent!.deliveryId);
    expect(replayed.json.status, replayed.text).toBe('success');
    await settled((all) => all.find((delivery) => delivery.deliveryId === sent!.deliveryId)?.state === 'sent');
    expect(platform.grades.scorePosts).toBe(posts + 1);
  });

  it('answers 404 to a delivery id that names no delivery of this course, malformed or not, and writes nothing', async () => {
    const before = await scoreDeliveriesOf(world.course.term, world.course.course);
    const entries = (await ltiEntries()).length;
    const ofAnotherCourse = `ls_${Buffer.from(JSON.stringify(['essay', world.users.student.userId, before[0]!.registrationId, 'lms-elsewhere'])).toString('base64url')}`;
    for (const id of [
      ofAnotherCourse,
      `ls_${Buffer.from('{"a":1}').toString('base64url')}`,
      `ls_${Buffer.from('[1,2,3,4]').toString('base64url')}`,
      'ls_!!',
      'msg_000000000000000000000',
      `ls_${'A'.repeat(3000)}`,
      '..%2F..%2Fx',
    ]) {
      const answer = await replay(id);
      expect(answer.httpStatus, `${id}: ${answer.text}`).toBe(404);
      expect(answer.json.message, id).toMatch(/^No LMS score delivery .{1,64} of this course\.$/);
    }
    expect(await scoreDeliveriesOf(world.course.term, world.course.course)).toEqual(before);
    expect((await ltiEntries()).length).toBe(entries);
  });

  it('publishes every current grade of a gradeable again: each student queued is sent once, and a copy of the message sends nothing', async () => {
    await settled();
    const posts = platform.grades.scorePosts;
    const published = await publish('essay');
    expect(published.json.status, published.text).toBe('success');
    expect(published.json.data).toEqual({ gradeable_id: 'essay', team_gradeable: false, queued: 3, lms_courses: 1 });
    const deliveries = await settled((all) =>
      [world.users.student, world.users.student2, student3].every((user) => deliveryOf(all, 'essay', user)?.publishId !== undefined),
    );
    expect(platform.grades.scorePosts).toBe(posts + 3);
    for (const user of [world.users.student, world.users.student2, student3]) {
      const delivery = deliveryOf(deliveries, 'essay', user)!;
      expect(delivery.state).toBe('sent');
      expect(platform.grades.scoreOf(CONTEXT, 'essay', sub(user))?.timestamp).toBe(delivery.gradedAt);
    }
    // The publish's message again, as a second copy from the queue would come: nothing is sent twice.
    const { publishId, gradedAt } = deliveryOf(deliveries, 'essay', world.users.student)!;
    const copy = ltiScoreEntry(
      `copy#${publishId!}`,
      {
        kind: 'publish',
        term: world.course.term,
        course: world.course.course,
        gradeableId: 'essay',
        publishId: publishId!,
        requestedAt: gradedAt,
      },
      new Date(),
    );
    await transactWrite([outboxPut(copy)]);
    await settled();
    await api.server.ltiScoreQueue.idle();
    expect(platform.grades.scorePosts).toBe(posts + 3);

    // A gradeable nobody has a grade of queues nothing; an unknown gradeable is refused.
    await uploadGradeable(api, world, taGraded('empty', 'Empty'));
    expect((await publish('empty')).json.data).toMatchObject({ queued: 0 });
    const unknown = await publish('nothing');
    expect([unknown.httpStatus, unknown.json.message]).toEqual([404, "Invalid gradeable id 'nothing'"]);
  }, 60_000);

  it('publishes a team gradeable’s grade to each member of the team, counting the team once', async () => {
    const { vcs: _vcs, ...duet } = taGraded('duet', 'Duet');
    await uploadGradeable(api, world, { ...duet, team_gradeable: { team_size_max: 2, inherit_from: '' } });
    const teamed = await api.call('PUT', `${base}/gradeable/duet/teams/pair`, {
      headers: { 'Content-Type': 'application/json', ...world.tokens.instructor },
      body: JSON.stringify({ members: [world.users.student.userId, world.users.student2.userId] }),
    });
    expect(teamed.json.status, teamed.text).toBe('success');
    const graded = await grade('duet', world.users.student, 0, 4);
    expect(graded.json.status, graded.text).toBe('success');
    const members = [world.users.student, world.users.student2];
    await settled((all) => members.every((user) => deliveryOf(all, 'duet', user)?.state === 'sent'));
    const posts = platform.grades.scorePosts;
    const published = await publish('duet');
    expect(published.json.data).toEqual({ gradeable_id: 'duet', team_gradeable: true, queued: 1, lms_courses: 1 });
    const deliveries = await settled((all) => members.every((user) => deliveryOf(all, 'duet', user)?.publishId !== undefined));
    expect(platform.grades.scorePosts).toBe(posts + 2);
    for (const user of members) {
      expect(deliveryOf(deliveries, 'duet', user)).toMatchObject({ state: 'sent', ownerId: 'pair' });
      expect(platform.grades.scoreOf(CONTEXT, 'duet', sub(user))).toMatchObject({ scoreGiven: 4 });
    }
  }, 60_000);

  it('lets only the course’s instructors replay and publish, the list also superusers; a launch session only in its own course', async () => {
    const [row] = await list();
    const entries = (await ltiEntries()).length;
    for (const persona of ['ta', 'student', 'otherInstructor'] as const) {
      const headers = { ...world.tokens[persona], Prefer: 'http-status' };
      expect((await api.get(`${base}/lti/scores`, headers)).httpStatus, persona).toBe(403);
      expect((await replay(row!.delivery_id, headers)).httpStatus, persona).toBe(403);
      expect((await publish('essay', headers)).httpStatus, persona).toBe(403);
    }
    // The instructor's launch session from another LMS course, linked to another course of theirs.
    const other = await createCourse(world.course.term, world.users.instructor);
    const unlinked = await launchSession(world.users.instructor, [ROLES.instructor], 'lms-other');
    expect((await api.postJson(`/${other.term}/${other.course}/lti/link`, {}, unlinked)).json.status).toBe('success');
    const elsewhere = await launchSession(world.users.instructor, [ROLES.instructor], 'lms-other');
    expect((await api.get(`/${other.term}/${other.course}/lti/scores`, elsewhere)).json.status).toBe('success');
    // A delivery of this course, named under the other course by their instructor: none there.
    const crossed = await api.postJson(`/${other.term}/${other.course}/lti/scores/${row!.delivery_id}/replay`, {}, instructor);
    expect([crossed.httpStatus, crossed.json.message]).toEqual([
      404,
      `No LMS score delivery ${row!.delivery_id.slice(0, 64)} of this course.`,
    ]);
    expect((await api.get(`${base}/lti/scores`, elsewhere)).httpStatus).toBe(403);
    expect((await replay(row!.delivery_id, elsewhere)).httpStatus).toBe(403);
    expect((await publish('essay', elsewhere)).httpStatus).toBe(403);
    // The launch session of this course's own LMS course reads its list.
    const own = await launchSession(world.users.instructor, [ROLES.instructor]);
    expect((await list('', own)).length).toBeGreaterThan(0);
    expect((await ltiEntries()).length).toBe(entries);
  });
});
