import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { bindLtiPerson, linkLtiContext } from '#shared/data/lti.ts';
import { transactWrite } from '#shared/data/transactions.ts';
import { registrationIdOf } from '#shared/lti/registration.ts';
import { nightlyRosterSync } from '#shared/lti/roster-sync.ts';
import type { Course } from '#shared/courses/course.ts';
import { addMember, createCourse, createCourseWorld, tokenOf, type CourseWorld } from '../support/courses.ts';
import { startTestApi, type TestApi } from '../support/http.ts';
import { createUser, type TestUser } from '../support/users.ts';
import { ROLES, startLtiPlatform, type LaunchMessage, type LtiTestPlatform } from '../support/lti-platform.ts';
import { revokeSeenTokens, type PlatformMember } from '../support/lti-platform-services.ts';
import { differences, snapshotTables } from '../hardening/support.ts';
import { closeAll } from '../support/allowed-servers.ts';

let api: TestApi;
let platform: LtiTestPlatform;
let world: CourseWorld;
let instructor: Record<string, string>;
let contexts = 0;
beforeAll(async () => {
  api = await startTestApi();
  platform = await startLtiPlatform(api.url);
  vi.stubEnv('LTI_ALLOWED_HOSTS', platform.host);
  vi.stubEnv('LTI_FRONTEND_URL', 'http://127.0.0.1:5173/lti');
  world = await createCourseWorld(api);
  instructor = { Authorization: await tokenOf(api, world.users.instructor), Prefer: 'http-status' };
  const su = { Authorization: await tokenOf(api, world.users.superuser), Prefer: 'http-status' };
  const answer = await api.postJson(
    '/lti/registrations',
    platform.registration({ user_id_claim: 'email', user_id_suffix: '@example.edu', create_users: true }),
    su,
  );
  expect(answer.json.status, answer.text).toBe('success');
}, 120_000);
afterAll(() => closeAll(platform, api));

/** A course of the world's instructor linked to an LMS course of its own (students brought in get `section`). */
async function linkedCourse(section: string | null = '7'): Promise<{ course: Course; contextId: string }> {
  const course = await createCourse(world.term, world.users.instructor);
  const contextId = `lms-sync-${++contexts}`;
  await transactWrite(
    linkLtiContext({
      registrationId: registrationIdOf(platform.issuer, platform.clientId),
      contextId,
      deploymentId: platform.deploymentId,
      semester: course.term,
      course: course.course,
      section,
      membershipsUrl: `${platform.issuer}/courses/${contextId}/memberships`,
      grades: null,
      linkedBy: world.users.instructor.userId,
      linkedAt: new Date().toISOString(),
    }),
  );
  return { course, contextId };
}

/** The LMS's member for a user here: their LMS id, their e-mail address marked verified. */
const member = (user: Pick<TestUser, 'userId'>, role: string, fields: Partial<PlatformMember> = {}): PlatformMember => ({
  user_id: `lms-${user.userId}`,
  roles: [role],
  name: `Given ${user.userId}`,
  email: `${user.userId}@example.edu`,
  email_verified: true,
  ...fields,
});

const sync = (course: Course, body: Record<string, unknown> = {}, headers = instructor) =>
  api.postJson(`/${course.term}/${course.course}/lti/roster-sync`, body, headers);

/** The course's members: user id → group (without its parenthesis) and registration section (null for none). */
async function membersOf(course: Course): Promise<Record<string, [string, string | null]>> {
  const answer = await api.get(`/${course.term}/${course.course}/users`, instructor);
  expect(answer.json.status, answer.text).toBe('success');
  return Object.fromEntries(
    (answer.json.data as { user_id: string; group: string; reg_section: string }[]).map((user) => [
      user.user_id,
      [user.group.replace(/ \(.*\)$/, ''), user.reg_section === 'NULL' ? null : user.reg_section],
    ]),
  );
}

describe('LTI roster sync', () => {
  it('reads every page of the roster, maps LMS roles as a launch does, and enrols through the class-list import', async () => {
    const { course, contextId } = await linkedCourse('7');
    const { ta, mentor, student } = world.users;
    const newcomer = { userId: `new${contexts}a` };
    const designer = await createUser('user', 'designer');
    platform.roster.setMembers(contextId, [
      member(world.users.instructor, ROLES.instructor),
      member(ta, ROLES.teachingAssistant),
      member(mentor, ROLES.grader),
      member(student, ROLES.learner),
      { ...member(newcomer, ROLES.learner), given_name: 'Nora', family_name: 'Newcomer' },
      member(designer, `${ROLES.mentor}`),
    ]);
    platform.roster.pageSize = 2;
    const pages = platform.roster.pagesServed;
    try {
      const answer = await sync(course);
      expect(answer.json.status, answer.text).toBe('success');
      expect(platform.roster.pagesServed - pages).toBe(3);
      expect(answer.json.data).toMatchObject({ dry_run: false, created: 4, updated: 0, unchanged: 1, dropped: 0 });
      expect(answer.json.data.rejected).toEqual([
        { line: 6, reason: `LMS user lms-${designer.userId} (${designer.userId}) has no LMS role that is a course role here; left as is.` },
      ]);
      expect(answer.json.data.new_accounts).toEqual([{ user_id: newcomer.userId, password: expect.any(String) }]);
      expect(await membersOf(course)).toEqual({
        [world.users.instructor.userId]: ['Instructor', null],
        [ta.userId]: ['Full Access Grader', null],
        [mentor.userId]: ['Limited Access Grader', null],
        [student.userId]: ['Student', '7'],
        [newcomer.userId]: ['Student', '7'],
      });
      // Synced again, nothing changes.
      const again = await sync(course);
      expect(again.json.data).toMatchObject({ created: 0, updated: 0, unchanged: 5, dropped: 0 });
    } finally {
      platform.roster.pageSize = 100;
    }
  });

  it("never raises or lowers the role of a member of the course: the LMS's role applies to newcomers only", async () => {
    const { course, contextId } = await linkedCourse('7');
    const [grader, learner] = await Promise.all(['grader', 'learner'].map((prefix) => createUser('user', prefix)));
    await addMember(course, grader!, 2, null);
    await addMember(course, learner!, 4, '3');
    platform.roster.setMembers(contextId, [
      member(world.users.instructor, ROLES.instructor),
      member(grader!, ROLES.learner),
      member(learner!, ROLES.instructor),
    ]);
    const answer = await sync(course);
    expect(answer.json.status, answer.text).toBe('success');
    const members = await membersOf(course);
    expect(members[grader!.userId]).toEqual(['Full Access Grader', null]);
    expect(members[learner!.userId]).toEqual(['Student', '3']);
  });

  it('drops students the LMS marks Inactive or Deleted or no longer lists, never staff, and keeps sections set here', async () => {
    const { course, contextId } = await linkedCourse('7');
    const [kept, inactive, deleted, absent, moved, staffInactive] = await Promise.all(
      ['kept', 'inactive', 'deleted', 'absent', 'moved', 'stafflms'].map((prefix) => createUser('user', prefix)),
    );
    await addMember(course, kept!, 4, '3');
    await addMember(course, inactive!, 4, '3');
    await addMember(course, deleted!, 4, '3');
    await addMember(course, absent!, 4, '3');
    await addMember(course, staffInactive!, 2, null);
    platform.roster.setMembers(contextId, [
      member(world.users.instructor, ROLES.instructor),
      member(kept!, ROLES.learner),
      member(inactive!, ROLES.learner, { status: 'Inactive' }),
      member(deleted!, ROLES.learner, { status: 'Deleted' }),
      member(moved!, ROLES.learner),
      member(staffInactive!, ROLES.teachingAssistant, { status: 'Inactive' }),
    ]);
    const answer = await sync(course);
    expect(answer.json.status, answer.text).toBe('success');
    expect(answer.json.data).toMatchObject({ created: 1, dropped: 3, rejected: [] });
    expect(await membersOf(course)).toEqual({
      [world.users.instructor.userId]: ['Instructor', null],
      // The section an instructor set here stays; a newcomer gets the link's.
      [kept!.userId]: ['Student', '3'],
      [moved!.userId]: ['Student', '7'],
      [inactive!.userId]: ['Student', null],
      [deleted!.userId]: ['Student', null],
      [absent!.userId]: ['Student', null],
      [staffInactive!.userId]: ['Full Access Grader', null],
    });
  });

  it("takes the member's binding over the e-mail address the LMS now gives, and refuses two LMS users of one user here", async () => {
    const { course, contextId } = await linkedCourse('7');
    const [bound, other, twin] = await Promise.all(['bound', 'other', 'twin'].map((prefix) => createUser('user', prefix)));
    await transactWrite([bindLtiPerson({ issuer: platform.issuer, subject: `lms-${bound!.userId}`, userId: bound!.userId }, new Date())]);
    platform.roster.setMembers(contextId, [
      member(world.users.instructor, ROLES.instructor),
      // The LMS user bound to `bound` now has the e-mail address of `other`: the binding decides.
      member(bound!, ROLES.learner, { email: `${other!.userId}@example.edu` }),
      // Two LMS users whose addresses name `twin`: neither is taken.
      member(twin!, ROLES.learner),
      member({ userId: `${twin!.userId}-2` }, ROLES.learner, { email: `${twin!.userId}@example.edu` }),
      // An address not marked verified names no one.
      member(other!, ROLES.learner, { user_id: 'lms-unverified', email_verified: false }),
    ]);
    const answer = await sync(course);
    expect(answer.json.status, answer.text).toBe('success');
    expect(answer.json.data.rejected).toEqual([
      { line: 3, reason: `Several LMS users (lines 3, 4) are ${twin!.userId} here; none is taken until one is.` },
      { line: 4, reason: `Several LMS users (lines 3, 4) are ${twin!.userId} here; none is taken until one is.` },
      { line: 5, reason: 'LMS user lms-unverified is bound to no user here and has no verified email.' },
    ]);
    expect(await membersOf(course)).toEqual({
      [world.users.instructor.userId]: ['Instructor', null],
      [bound!.userId]: ['Student', '7'],
    });
  });

  it('writes nothing on a dry run, and answers what the sync would do', async () => {
    const { course, contextId } = await linkedCourse('7');
    const gone = await createUser('user', 'gone');
    await addMember(course, gone, 4, '1');
    platform.roster.setMembers(contextId, [
      member(world.users.instructor, ROLES.instructor),
      member(world.users.student, ROLES.learner),
      member({ userId: `dry${contexts}` }, ROLES.learner),
    ]);
    const before = await snapshotTables();
    const answer = await sync(course, { dry_run: true });
    expect(answer.json.status, answer.text).toBe('success');
    expect(answer.json.data).toMatchObject({
      dry_run: true,
      created: 2,
      dropped: 1,
      new_accounts: [{ user_id: `dry${contexts}`, password: null }],
    });
    expect(differences(before, await snapshotTables())).toEqual([]);
  });

  it('asks for a new service token when the LMS stops taking the one it gave (401), and syncs', async () => {
    const { course, contextId } = await linkedCourse('7');
    platform.roster.setMembers(contextId, [member(world.users.instructor, ROLES.instructor), member(world.users.student, ROLES.learner)]);
    expect((await sync(course, { dry_run: true })).json.status).toBe('success');
    const granted = platform.tokenRequests;
    // The LMS lost or revoked every token it gave: the tool's cached one is now answered 401.
    revokeSeenTokens(platform.provider);
    const answer = await sync(course, { dry_run: true });
    expect(answer.json.status, answer.text).toBe('success');
    expect(answer.json.data).toMatchObject({ created: 1, unchanged: 1 });
    expect(platform.tokenRequests - granted, 'tokens asked for').toBe(1);
  });

  it('refuses a next page on another origin, and a platform answering 500, writing nothing', async () => {
    const { course, contextId } = await linkedCourse('7');
    platform.roster.setMembers(contextId, [
      member(world.users.instructor, ROLES.instructor),
      member(world.users.student, ROLES.learner),
      member(world.users.student2, ROLES.learner),
    ]);
    platform.roster.pageSize = 2;
    platform.roster.nextOrigin = 'http://127.0.0.2:1';
    try {
      const before = await snapshotTables();
      const foreign = await sync(course);
      expect(foreign.httpStatus, foreign.text).toBe(422);
      expect(foreign.json.message).toBe(
        "The LMS's roster could not be read (The LMS's roster service answered a next page on another origin (http://127.0.0.2:1)); nothing was changed. The platform's LTI registration or its tool settings need checking.",
      );
      platform.roster.nextOrigin = undefined;
      platform.roster.failure = { status: 500 };
      const failed = await sync(course);
      expect(failed.httpStatus, failed.text).toBe(503);
      expect(failed.json.message).toBe(
        "The LMS's roster could not be read for now (The LMS's roster service answered HTTP 500 (unavailable)); nothing was changed. Try again later.",
      );
      platform.roster.failure = { status: 429, headers: { 'retry-after': '20' } };
      const busy = await sync(course);
      expect(busy.httpStatus, busy.text).toBe(503);
      expect(busy.headers.get('retry-after')).toBe('20');
      expect(differences(before, await snapshotTables())).toEqual([]);
    } finally {
      platform.roster.pageSize = 100;
      platform.roster.nextOrigin = undefined;
      platform.roster.failure = undefined;
    }
  });

  it('refuses a course linked to no LMS course', async () => {
    const course = await createCourse(world.term, world.users.instructor);
    const answer = await sync(course);
    expect(answer.httpStatus, answer.text).toBe(409);
    expect(answer.json.message).toBe(
      "This course is linked to no LMS course with a roster service: an instructor's launch from the LMS course links it (POST …/lti/link).",
    );
  });

  it("is the course's instructors' only: not a grader's, a student's, another course's instructor's or a launch session's of another course", async () => {
    const { course, contextId } = await linkedCourse('7');
    platform.roster.setMembers(contextId, [member(world.users.instructor, ROLES.instructor)]);
    // The instructor's launch session from another linked course is held to that course.
    const other = await linkedCourse('7');
    platform.addUser({ sub: `lms-${world.users.instructor.userId}`, email: world.users.instructor.email, email_verified: true });
    const launchSession = await launchToken(world.users.instructor, { roles: [ROLES.instructor], contextId: other.contextId });
    const callers = [world.users.ta, world.users.mentor, world.users.student, world.users.otherInstructor];
    const tokens = await Promise.all(callers.map((user) => tokenOf(api, user)));
    const before = await snapshotTables();
    const pages = platform.roster.pagesServed;
    for (const [index, user] of callers.entries()) {
      const answer = await sync(course, {}, { Authorization: tokens[index]!, Prefer: 'http-status' });
      expect(answer.httpStatus, `${user.userId}: ${answer.text}`).toBe(403);
    }
    const answer = await sync(course, {}, launchSession);
    expect(answer.httpStatus, answer.text).toBe(403);
    expect(platform.roster.pagesServed).toBe(pages);
    expect(differences(before, await snapshotTables())).toEqual([]);
  });

  it('syncs every linked course on the nightly run; a course whose platform fails stops none of the others', async () => {
    const first = await linkedCourse('7');
    const second = await linkedCourse('8');
    const late = await createUser('user', 'late');
    platform.roster.setMembers(first.contextId, [member(world.users.instructor, ROLES.instructor), member(late, ROLES.learner)]);
    platform.roster.setMembers(second.contextId, [member(world.users.instructor, ROLES.instructor), member(late, ROLES.learner)]);
    // The second link's roster URL leads nowhere: its course fails, the first is synced all the same.
    await transactWrite(
      linkLtiContext({
        registrationId: registrationIdOf(platform.issuer, platform.clientId),
        contextId: `${second.contextId}-broken`,
        deploymentId: platform.deploymentId,
        semester: second.course.term,
        course: second.course.course,
        section: '8',
        membershipsUrl: 'http://127.0.0.1:1/memberships',
        grades: null,
        linkedBy: world.users.instructor.userId,
        linkedAt: new Date().toISOString(),
      }),
    );
    const report = await nightlyRosterSync();
    expect(report.failed).toBeGreaterThanOrEqual(1);
    expect((await membersOf(first.course))[late.userId]).toEqual(['Student', '7']);
    expect((await membersOf(second.course))[late.userId]).toBeUndefined();
  });
});

/** A launch session of `user` through the platform. */
async function launchToken(user: TestUser, message: LaunchMessage): Promise<Record<string, string>> {
  const answer = await platform.launch(`lms-${user.userId}`, message);
  const location = answer.headers.get('location') ?? '';
  expect(answer.status, await answer.text()).toBe(303);
  const code = location.slice(location.indexOf('#lti_code=') + '#lti_code='.length);
  const token = await api.postJson('/token', { lti_code: code }, { Prefer: 'http-status' });
  expect(token.json.status, token.text).toBe('success');
  return { Authorization: token.json.data.token as string, Prefer: 'http-status' };
}
