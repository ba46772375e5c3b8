import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { pageTitle } from '#shared/http/platform-answers.ts';
import { linkLtiContext } from '#shared/data/lti.ts';
import { transactWrite } from '#shared/data/transactions.ts';
import { registrationIdOf } from '#shared/lti/registration.ts';
import { KEYS_COOLDOWN_MS } from '#shared/lti/platform-keys.ts';
import { addMember, createCourse, createCourseWorld, tokenOf, type CourseWorld } from '../support/courses.ts';
import { startTestApi, type TestApi } from '../support/http.ts';
import { createUser, type TestUser } from '../support/users.ts';
import { LTI, ROLES, startLtiPlatform, type LaunchMessage, type LtiTestPlatform } from '../support/lti-platform.ts';
import { differences, snapshotTables } from '../hardening/support.ts';
import { closeAll } from '../support/allowed-servers.ts';

const FRONTEND = 'http://127.0.0.1:5173/lti';

let api: TestApi;
let platform: LtiTestPlatform;
let world: CourseWorld;
let su: Record<string, string>;
beforeAll(async () => {
  api = await startTestApi();
  platform = await startLtiPlatform(api.url);
  vi.stubEnv('LTI_ALLOWED_HOSTS', platform.host);
  vi.stubEnv('LTI_FRONTEND_URL', FRONTEND);
  world = await createCourseWorld(api);
  su = { Authorization: await tokenOf(api, world.users.superuser), Prefer: 'http-status' };
  const answer = await api.postJson(
    '/lti/registrations',
    platform.registration({ user_id_claim: 'email', user_id_suffix: '@example.edu' }),
    su,
  );
  expect(answer.json.status, answer.text).toBe('success');
  await link('lms-course-1', world.course);
  for (const user of Object.values(world.users)) platform.addUser(lmsUser(user));
}, 120_000);
afterAll(() => closeAll(platform, api));

/** The LMS's person for a user here: their e-mail address, verified. */
const lmsUser = (user: TestUser, fields: Record<string, unknown> = {}) => ({
  sub: `lms-${user.userId}`,
  email: user.email,
  email_verified: true,
  name: `${user.givenName} ${user.familyName}`,
  ...fields,
});

/** Links an LMS context to a course as the link route would (the link route's own tests say how it is asked). */
async function link(contextId: string, course: { term: string; course: string }, section: string | null = '1') {
  await transactWrite(
    linkLtiContext({
      registrationId: registrationIdOf(platform.issuer, platform.clientId),
      contextId,
      deploymentId: platform.deploymentId,
      semester: course.term,
      course: course.course,
      section,
      membershipsUrl: null,
      grades: null,
      linkedBy: world.users.instructor.userId,
      linkedAt: new Date().toISOString(),
    }),
  );
}

/** A launch through the platform that succeeds: its code, from the frontend URL's fragment. */
async function launchCode(user: TestUser, message: LaunchMessage = {}): Promise<string> {
  const answer = await platform.launch(`lms-${user.userId}`, message);
  const location = answer.headers.get('location') ?? '';
  expect(answer.status, await answer.text()).toBe(303);
  expect(location.startsWith(`${FRONTEND}#lti_code=`), location).toBe(true);
  return location.slice(`${FRONTEND}#lti_code=`.length);
}

const trade = (code: string) => api.postJson('/token', { lti_code: code }, { Prefer: 'http-status' });

async function launchToken(user: TestUser, message: LaunchMessage = {}): Promise<Record<string, string>> {
  const answer = await trade(await launchCode(user, message));
  expect(answer.json.status, answer.text).toBe('success');
  return { Authorization: answer.json.data.token as string, Prefer: 'http-status' };
}

/** A launch form posted to the tool: an HTML page with this status and title, and nothing written. */
async function refusedLaunch(form: Record<string, string>, status: number, title: string) {
  const before = await snapshotTables();
  const answer = await api.postForm('/lti/launch', form);
  expect(answer.httpStatus, answer.text).toBe(status);
  expect(answer.headers.get('content-type')).toMatch(/^text\/html/);
  expect(pageTitle(answer.text)).toBe(title);
  expect(differences(before, await snapshotTables())).toEqual([]);
  return answer;
}

/** A token of the platform for this login's state, its claims as a launch's with `changes`. */
async function signedLaunch(user: TestUser, changes: Record<string, unknown> = {}, options: { kid?: string; key?: 'stranger' } = {}) {
  const sub = `lms-${user.userId}`;
  const { state, nonce } = await platform.login(sub);
  const now = Math.floor(Date.now() / 1000);
  const claims: Record<string, unknown> = {
    ...platform.claimsOf(sub),
    sub,
    iss: platform.issuer,
    aud: platform.clientId,
    iat: now,
    exp: now + 300,
    nonce,
  };
  // A claim given as undefined is left out.
  const signed = Object.fromEntries(Object.entries({ ...claims, ...changes }).filter(([, value]) => value !== undefined));
  return { state, id_token: await platform.sign(signed, options) };
}

describe('LTI launch', () => {
  it('launches a student through the platform into the linked course: a code in the fragment, a launch session for that course', async () => {
    const student = world.users.student;
    const code = await launchCode(student, { custom: { gradeable_id: 'no_such_gradeable' } });
    expect(code).toMatch(/^[\w-]{43}$/);
    const token = await trade(code);
    expect(token.json.status, token.text).toBe('success');
    const headers = { Authorization: token.json.data.token as string, Prefer: 'http-status' };
    const info = await api.get('/token', headers);
    expect(info.json.data).toMatchObject({
      user_id: student.userId,
      method: 'lti',
      launch: {
        registration_id: registrationIdOf(platform.issuer, platform.clientId),
        semester: world.course.term,
        course: world.course.course,
        gradeable_id: null,
        roles: ['Student'],
        message_type: 'LtiResourceLinkRequest',
      },
    });
    const hours = (Date.parse(info.json.data.expires_at as string) - Date.parse(info.json.data.issued_at as string)) / 3_600_000;
    expect(hours).toBeLessThanOrEqual(8);
    const gradeables = await api.get(`/${world.course.term}/${world.course.course}/gradeables`, headers);
    expect(gradeables.json.status, gradeables.text).toBe('success');
    // The code is single-use.
    const again = await trade(code);
    expect(again.httpStatus, again.text).toBe(401);
    expect(again.json.message).toBe('The lti_code is unknown, used already or older than 60 seconds: open the tool again from the LMS.');
  });

  it('without LTI_FRONTEND_URL answers a page that shows the code', async () => {
    vi.stubEnv('LTI_FRONTEND_URL', '');
    try {
      const answer = await platform.launch(`lms-${world.users.student2.userId}`);
      const html = await answer.text();
      expect(answer.status, html).toBe(200);
      expect(pageTitle(html)).toBe('Launched');
      const code = /lti_code\): ([\w-]{43})/.exec(html)?.[1] ?? '';
      expect((await trade(code)).json.status).toBe('success');
    } finally {
      vi.stubEnv('LTI_FRONTEND_URL', FRONTEND);
    }
  });

  it('refuses, on a page naming the cause and writing nothing, a launch that is not genuine', async () => {
    const student = world.users.student;
    const tampered = await signedLaunch(student);
    const [header, payload, signature] = tampered.id_token.split('.') as [string, string, string];
    const changed = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), sub: `lms-${world.users.instructor.userId}` }),
    ).toString('base64url');
    await refusedLaunch(
      { ...tampered, id_token: `${header}.${changed}.${signature}` },
      401,
      "The launch's ID token is refused: its signature is not the platform's.",
    );
    const now = Math.floor(Date.now() / 1000);
    await refusedLaunch(
      await signedLaunch(student, { iat: now - 600, exp: now - 300 }),
      401,
      "The launch's ID token is refused: it has expired.",
    );
    await refusedLaunch(
      await signedLaunch(student, { aud: 'another-tool' }),
      401,
      "The launch's ID token is refused: it was issued for another client.",
    );
    await refusedLaunch(
      await signedLaunch(student, { aud: [platform.clientId, 'another-tool'], azp: 'another-tool' }),
      401,
      "The launch's ID token is refused: it was issued for another client.",
    );
    await refusedLaunch(
      await signedLaunch(student, { iss: 'https://lms.elsewhere.example.edu' }),
      401,
      "The launch's ID token is refused: it was not issued by this launch's platform.",
    );
    await refusedLaunch(
      await signedLaunch(student, {}, { key: 'stranger' }),
      401,
      "The launch's ID token is refused: it names no key the platform publishes.",
    );
    await refusedLaunch(
      await signedLaunch(student, { nonce: 'another-nonce' }),
      401,
      "The launch's ID token is refused: its nonce is not the one this launch's login sent.",
    );
    await refusedLaunch(
      await signedLaunch(student, { [`${LTI}deployment_id`]: 'deployment-2' }),
      403,
      'The deployment deployment-2 is not one this LTI registration allows.',
    );
    await refusedLaunch(
      await signedLaunch(student, { [`${LTI}version`]: '1.1' }),
      401,
      "The launch's ID token is refused: its LTI version is not 1.3.0.",
    );
    await refusedLaunch(
      await signedLaunch(student, { [`${LTI}message_type`]: 'LtiSubmissionReviewRequest' }),
      401,
      "The launch's ID token is refused: its message type is not LtiResourceLinkRequest or LtiDeepLinkingRequest.",
    );
    await refusedLaunch(
      { id_token: tampered.id_token, state: 'a-state-nobody-issued' },
      400,
      "This launch's state is unknown, used already or older than ten minutes: open the tool again from the LMS.",
    );
    await refusedLaunch({ state: tampered.state }, 400, 'An LTI launch needs id_token and state.');
  });

  it('takes a state, its nonce and a code once only: a replayed launch and a reused code are refused and write nothing', async () => {
    const form = await platform.launchForm(`lms-${world.users.student.userId}`);
    const first = await api.postForm('/lti/launch', form.fields);
    expect(first.httpStatus, first.text).toBe(303);
    await refusedLaunch(
      form.fields,
      400,
      "This launch's state is unknown, used already or older than ten minutes: open the tool again from the LMS.",
    );
  });

  it("refetches the platform's keys once for a key it does not know (the platform rotated its keys), and the launch works", async () => {
    await launchCode(world.users.student);
    const fetched = platform.keyFetches;
    await platform.rotateKeys();
    // Past the cooldown that keeps made-up key ids from fetching the keys on every launch.
    await new Promise((resolve) => setTimeout(resolve, KEYS_COOLDOWN_MS + 100));
    await launchCode(world.users.student);
    expect(platform.keyFetches).toBe(fetched + 1);
  });

  it("answers 503 with Retry-After, writing nothing, while the platform's keys cannot be read", async () => {
    const other = await startLtiPlatform(api.url);
    vi.stubEnv('LTI_ALLOWED_HOSTS', `${platform.host},${other.host}`);
    try {
      const answer = await api.postJson(
        '/lti/registrations',
        other.registration({ user_id_claim: 'email', user_id_suffix: '@example.edu' }),
        su,
      );
      expect(answer.json.status, answer.text).toBe('success');
      other.addUser(lmsUser(world.users.instructor));
      other.keysUnreachable(true);
      const form = await other.launchForm(`lms-${world.users.instructor.userId}`, { roles: [ROLES.instructor] });
      const before = await snapshotTables();
      const refused = await api.postForm('/lti/launch', form.fields);
      expect(refused.httpStatus, refused.text).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('30');
      expect(differences(before, await snapshotTables())).toEqual([]);
      // Once the keys can be read again, the same launch (its state unused) works.
      other.keysUnreachable(false);
      const launched = await api.postForm('/lti/launch', form.fields);
      expect(launched.httpStatus, launched.text).toBe(303);
    } finally {
      vi.stubEnv('LTI_ALLOWED_HOSTS', platform.host);
      await other.close();
    }
  });
});

describe('launch sessions', () => {
  it("reach only the launched course's routes and the caller's own, never another course or a superuser's route", async () => {
    const headers = await launchToken(world.users.instructor, { roles: [ROLES.instructor] });
    const own = await api.get(`/${world.course.term}/${world.course.course}/gradeables`, headers);
    expect(own.json.status, own.text).toBe('success');
    const sibling = await api.get(`/${world.sibling.term}/${world.sibling.course}/gradeables`, headers);
    expect(sibling.httpStatus).toBe(403);
    expect((await api.get('/me', headers)).json.status).toBe('success');
    expect((await api.get('/courses', headers)).httpStatus).toBe(403);

    const superuserLaunch = await launchToken(world.users.superuser, { roles: [ROLES.administrator], contextId: 'lms-admin-course' });
    const users = await api.get('/users', superuserLaunch);
    expect(users.httpStatus, users.text).toBe(403);
    expect((await api.get('/users', su)).json.status).toBe('success');
  });

  it("are apart from the API token: a launch leaves the user's token working, and a new token leaves the launch session working", async () => {
    const student = await createUser('user', 'apart');
    await addMember(world.course, student, 4, '1');
    platform.addUser(lmsUser(student));
    const apiToken = { Authorization: await tokenOf(api, student), Prefer: 'http-status' };
    const launched = await launchToken(student);
    expect((await api.get('/token', apiToken)).json.data.method).toBe('password');
    const newApiToken = { Authorization: await tokenOf(api, student), Prefer: 'http-status' };
    expect((await api.get('/token', launched)).json.data.method).toBe('lti');
    expect((await api.get('/token', apiToken)).httpStatus).toBe(401);
    expect((await api.get('/token', newApiToken)).json.status).toBe('success');
    // A new launch replaces the earlier launch session, and leaves the API token alone.
    const relaunched = await launchToken(student);
    expect((await api.get('/token', launched)).httpStatus).toBe(401);
    expect((await api.get('/token', relaunched)).json.status).toBe('success');
    expect((await api.get('/token', newApiToken)).json.status).toBe('success');
    // Logging out of the launch session ends it only.
    expect((await api.postJson('/token/invalidate', {}, relaunched)).json.status).toBe('success');
    expect((await api.get('/token', relaunched)).httpStatus).toBe(401);
    expect((await api.get('/token', newApiToken)).json.status).toBe('success');
  });
});

describe('people and enrolment', () => {
  it('binds the LMS user at the first launch; afterwards the binding wins over a changed e-mail address', async () => {
    const [first, second] = [await createUser('user', 'bound'), await createUser('user', 'other')];
    await addMember(world.course, first, 4, '1');
    await addMember(world.course, second, 4, '1');
    platform.addUser(lmsUser(first));
    await launchToken(first);
    // The platform now sends the other user's address for the same person: the binding still names the first.
    platform.addUser(lmsUser(first, { email: second.email }));
    const headers = await launchToken(first);
    expect((await api.get('/token', headers)).json.data.user_id).toBe(first.userId);
  });

  it('uses an e-mail address only when the token marks it verified', async () => {
    const user = await createUser('user', 'unverified');
    await addMember(world.course, user, 4, '1');
    platform.addUser(lmsUser(user, { email_verified: 'true' }));
    const form = await platform.launchForm(`lms-${user.userId}`);
    await refusedLaunch(form.fields, 403, 'The launch does not say who the user is here: it has no verified email.');
  });

  it("enrols a new member of a linked course with the role the LMS gives, and never changes an existing member's role", async () => {
    const newcomer = await createUser('user', 'newcomer');
    platform.addUser(lmsUser(newcomer));
    const headers = await launchToken(newcomer, { roles: [ROLES.teachingAssistant] });
    expect((await api.get('/token', headers)).json.data.launch.roles).toEqual(['Full Access Grader (Grad TA)']);
    const users = await api.get(`/${world.course.term}/${world.course.course}/users`, {
      Authorization: world.tokens.instructor.Authorization!,
      Prefer: 'http-status',
    });
    expect(users.json.data.find((member: { user_id: string }) => member.user_id === newcomer.userId)).toMatchObject({
      group: 'Full Access Grader (Grad TA)',
    });

    // The course's TA launches as a Learner, and the student as an Instructor: neither role changes.
    const ta = await launchToken(world.users.ta, { roles: [ROLES.learner] });
    expect((await api.get('/token', ta)).json.data.launch.roles).toEqual(['Full Access Grader (Grad TA)']);
    const student = await launchToken(world.users.student, { roles: [ROLES.instructor] });
    expect((await api.get('/token', student)).json.data.launch.roles).toEqual(['Student']);
    const after = await api.get(`/${world.course.term}/${world.course.course}/users`, {
      Authorization: world.tokens.instructor.Authorization!,
      Prefer: 'http-status',
    });
    const groupOf = (userId: string) => after.json.data.find((member: { user_id: string }) => member.user_id === userId)?.group;
    expect([groupOf(world.users.ta.userId), groupOf(world.users.student.userId)]).toEqual(['Full Access Grader (Grad TA)', 'Student']);
  });

  it('tells a student launching from an LMS course not linked yet so, writing nothing; an instructor gets a session without a course', async () => {
    const form = await platform.launchForm(`lms-${world.users.student.userId}`, { contextId: 'lms-unlinked' });
    await refusedLaunch(
      form.fields,
      404,
      'This LMS course is not linked to a course here yet: its instructor links it by opening the tool from the LMS.',
    );
    const headers = await launchToken(world.users.instructor, { roles: [ROLES.instructor], contextId: 'lms-unlinked' });
    expect((await api.get('/token', headers)).json.data.launch).toMatchObject({ semester: null, course: null, roles: ['Instructor'] });
    expect((await api.get(`/${world.course.term}/${world.course.course}/gradeables`, headers)).httpStatus).toBe(403);
    expect((await api.get('/me', headers)).httpStatus).toBe(403);
  });
});

describe('course links', () => {
  it("link an instructor's unlinked LMS course to their course from their launch session; launches from it then enrol newcomers", async () => {
    const instructor = world.users.instructor;
    const course = await createCourse(world.term, instructor);
    const session = await launchToken(instructor, { roles: [ROLES.instructor], contextId: 'lms-to-link' });
    // Not to a course where the caller is not an instructor, and not with an API token.
    expect((await api.postJson(`/${world.sibling.term}/${world.sibling.course}/lti/link`, {}, session)).httpStatus).toBe(403);
    const withApiToken = await api.postJson(
      `/${course.term}/${course.course}/lti/link`,
      {},
      { ...world.tokens.instructor, Prefer: 'http-status' },
    );
    expect(withApiToken.httpStatus).toBe(403);
    expect(withApiToken.json.message).toMatch(/^An LMS course is linked from its instructor’s launch/);

    const linked = await api.postJson(`/${course.term}/${course.course}/lti/link`, { section: '2' }, session);
    expect(linked.json.status, linked.text).toBe('success');
    expect(linked.json.data).toMatchObject({
      registration_id: registrationIdOf(platform.issuer, platform.clientId),
      context_id: 'lms-to-link',
      deployment_id: platform.deploymentId,
      semester: course.term,
      course: course.course,
      section: '2',
      memberships_url: `${platform.issuer}/courses/lms-to-link/memberships`,
      grades: { lineitems: `${platform.issuer}/courses/lms-to-link/lineitems`, lineitem: null },
      linked_by: instructor.userId,
    });
    const listed = await api.get(`/${course.term}/${course.course}/lti/link`, session);
    expect(listed.httpStatus).toBe(403); // the launch session has no course: it only links
    const links = await api.get(`/${course.term}/${course.course}/lti/link`, { ...world.tokens.instructor, Prefer: 'http-status' });
    expect(links.json.data).toEqual([linked.json.data]);

    // Linked to one course only.
    const other = await createCourse(world.term, instructor);
    const again = await api.postJson(`/${other.term}/${other.course}/lti/link`, {}, session);
    expect(again.httpStatus, again.text).toBe(409);
    expect(again.json.message).toBe(`This LMS course is linked already, to ${course.term}/${course.course}.`);

    // A newcomer's launch enrols them as a student in the link's section.
    const newcomer = await createUser('user', 'linked');
    platform.addUser(lmsUser(newcomer));
    const student = await launchToken(newcomer, { contextId: 'lms-to-link' });
    expect((await api.get('/token', student)).json.data.launch).toMatchObject({
      semester: course.term,
      course: course.course,
      roles: ['Student'],
    });
    const users = await api.get(`/${course.term}/${course.course}/users`, { ...world.tokens.instructor, Prefer: 'http-status' });
    expect(users.json.data.find((member: { user_id: string }) => member.user_id === newcomer.userId)).toMatchObject({
      group: 'Student',
      reg_section: '2',
    });

    // Unlinked: the next launch from it is told so, and the member stays.
    const query = `registration_id=${registrationIdOf(platform.issuer, platform.clientId)}&context_id=lms-to-link`;
    const unlinked = await api.call('DELETE', `/${course.term}/${course.course}/lti/link?${query}`, {
      headers: { ...world.tokens.instructor, Prefer: 'http-status' },
    });
    expect(unlinked.json.status, unlinked.text).toBe('success');
    const form = await platform.launchForm(`lms-${newcomer.userId}`, { contextId: 'lms-to-link' });
    await refusedLaunch(
      form.fields,
      404,
      'This LMS course is not linked to a course here yet: its instructor links it by opening the tool from the LMS.',
    );
    const gone = await api.call('DELETE', `/${course.term}/${course.course}/lti/link?${query}`, {
      headers: { ...world.tokens.instructor, Prefer: 'http-status' },
    });
    expect(gone.httpStatus).toBe(404);
  });

  it('two links of one LMS course to two courses at once: exactly one wins, every round', async () => {
    const instructor = world.users.instructor;
    const rounds = 8;
    for (let round = 0; round < rounds; round++) {
      const [first, second] = [await createCourse(world.term, instructor), await createCourse(world.term, instructor)];
      const session = await launchToken(instructor, { roles: [ROLES.instructor], contextId: `lms-race-${round}-${Date.now()}` });
      const answers = await Promise.all(
        [first, second].map((course) => api.postJson(`/${course.term}/${course.course}/lti/link`, {}, session)),
      );
      expect(answers.map((answer) => answer.httpStatus).sort(), answers.map((answer) => answer.text).join('\n')).toEqual([200, 409]);
      const linkedTo = await Promise.all(
        [first, second].map(
          async (course) =>
            (await api.get(`/${course.term}/${course.course}/lti/link`, { ...world.tokens.instructor, Prefer: 'http-status' })).json.data
              .length,
        ),
      );
      expect(linkedTo.sort()).toEqual([0, 1]);
    }
  }, 120_000);
});

describe('races', () => {
  it('two launches posting one state: exactly one wins, every round', async () => {
    const rounds = 12;
    for (let round = 0; round < rounds; round++) {
      const form = await platform.launchForm(`lms-${world.users.student.userId}`);
      const answers = await Promise.all([api.postForm('/lti/launch', form.fields), api.postForm('/lti/launch', form.fields)]);
      expect(answers.map((answer) => answer.httpStatus).sort(), answers.map((answer) => answer.text).join('\n')).toEqual([303, 400]);
    }
  }, 120_000);

  it('two clients trading one code: exactly one gets a session, every round', async () => {
    const rounds = 12;
    for (let round = 0; round < rounds; round++) {
      const code = await launchCode(world.users.student);
      const answers = await Promise.all([trade(code), trade(code)]);
      expect(answers.map((answer) => answer.httpStatus).sort(), answers.map((answer) => answer.text).join('\n')).toEqual([200, 401]);
    }
  }, 120_000);
});
