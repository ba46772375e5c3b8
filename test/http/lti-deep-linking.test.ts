import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { linkLtiContext } from '#shared/data/lti.ts';
import { transactWrite } from '#shared/data/transactions.ts';
import { registrationIdOf } from '#shared/lti/registration.ts';
import { createCourseWorld, tokenOf, type CourseWorld } from '../support/courses.ts';
import { runs, greets, publicGradeableJson, uploadGradeable } from '../support/gradeables.ts';
import { rubricComponent } from '../support/rubric.ts';
import { startTestApi, type TestApi } from '../support/http.ts';
import type { TestUser } from '../support/users.ts';
import { ROLES, startLtiPlatform, type LaunchMessage, type LtiTestPlatform } from '../support/lti-platform.ts';
import { registerPlatform } from '../support/lti-sessions.ts';
import { DL, postAutoPostPage, RETURN_PATH } from '../support/lti-deep-linking.ts';
import { differences, snapshotTables } from '../hardening/support.ts';
import { closeAll } from '../support/allowed-servers.ts';

const FRONTEND = 'http://127.0.0.1:5173/lti';
const LTI = 'https://purl.imsglobal.org/spec/lti/claim/';

let api: TestApi;
let platform: LtiTestPlatform;
let world: CourseWorld;
beforeAll(async () => {
  api = await startTestApi();
  platform = await startLtiPlatform(api.url);
  vi.stubEnv('LTI_ALLOWED_HOSTS', platform.host);
  vi.stubEnv('LTI_FRONTEND_URL', FRONTEND);
  world = await createCourseWorld(api);
  await registerPlatform(api, world, platform, []);
  await transactWrite(
    linkLtiContext({
      registrationId: registrationIdOf(platform.issuer, platform.clientId),
      contextId: 'lms-course-1',
      deploymentId: platform.deploymentId,
      semester: world.course.term,
      course: world.course.course,
      section: '1',
      membershipsUrl: null,
      grades: null,
      linkedBy: world.users.instructor.userId,
      linkedAt: new Date().toISOString(),
    }),
  );
  for (const user of Object.values(world.users)) {
    platform.addUser({ sub: `lms-${user.userId}`, email: user.email, email_verified: true, name: `${user.givenName} ${user.familyName}` });
  }
  // hw_dl: 5 + 3 (hidden) test points, a bonus that does not count, and a rubric of 5: 13 at most.
  await uploadGradeable(
    api,
    world,
    publicGradeableJson('hw_dl', {
      title: 'Homework DL',
      autograding: { test_cases: [runs(5), { ...greets(3), is_hidden: true }, { ...runs(2), name: 'Bonus', is_extra_credit: true }] },
      rubric: [rubricComponent('Style')],
    }),
  );
  await uploadGradeable(api, world, publicGradeableJson('lab_dl', { title: 'Lab DL', autograding: { test_cases: [runs(4)] } }));
  const sibling = world.sibling;
  const other = await api.postJson(
    `/${sibling.term}/${sibling.course}/upload`,
    publicGradeableJson('sibling_dl', { title: 'Not this course' }),
    { Authorization: await tokenOf(api, world.users.siblingInstructor) },
  );
  expect(other.json.status, other.text).toBe('success');
}, 120_000);
afterAll(() => closeAll(platform, api));

/** A launch through the platform traded for a launch session: its headers. */
async function launchToken(user: TestUser, message: LaunchMessage): Promise<Record<string, string>> {
  const answer = await platform.launch(`lms-${user.userId}`, message);
  const location = answer.headers.get('location') ?? '';
  expect(answer.status, await answer.text()).toBe(303);
  const token = await api.postJson('/token', { lti_code: location.slice(`${FRONTEND}#lti_code=`.length) }, { Prefer: 'http-status' });
  expect(token.json.status, token.text).toBe('success');
  return { Authorization: token.json.data.token as string, Prefer: 'http-status' };
}

const instructorDeepLink = (deepLinking: LaunchMessage['deepLinking'] = {}, message: LaunchMessage = {}) =>
  launchToken(world.users.instructor, { roles: [ROLES.instructor], deepLinking, ...message });

/** `POST /api/lti/deep-links` refused with this status and message, and nothing written. */
async function refused(headers: Record<string, string>, gradeableIds: unknown, status: number, message: string) {
  const before = await snapshotTables();
  const answer = await api.postJson('/lti/deep-links', { gradeable_ids: gradeableIds }, headers);
  expect(answer.httpStatus, answer.text).toBe(status);
  expect(answer.json.status).toBe('fail');
  expect(answer.json.message).toBe(message);
  expect(differences(before, await snapshotTables())).toEqual([]);
}

const NEEDS_LAUNCH =
  'Gradeables are added to the LMS from a deep-linking launch: open the tool from where the LMS adds content (an assignment’s or activity’s external tool), then pick them.';

describe('LTI deep linking', () => {
  it("adds two gradeables to the LMS: the platform accepts the signed response, and a student's launch of a created link opens its gradeable", async () => {
    const headers = await instructorDeepLink({ acceptMultiple: true });
    const info = await api.get('/token', headers);
    expect(info.json.data.launch).toMatchObject({
      message_type: 'LtiDeepLinkingRequest',
      semester: world.course.term,
      course: world.course.course,
    });

    const answer = await api.postJson('/lti/deep-links', { gradeable_ids: ['hw_dl', 'lab_dl'] }, headers);
    expect(answer.json.status, answer.text).toBe('success');
    const { url, jwt, html } = answer.json.data as { url: string; jwt: string; html: string };
    expect(url).toBe(`${platform.issuer}${RETURN_PATH}`);
    const keys = await api.get('/lti/jwks');
    expect(decodeProtectedHeader(jwt)).toMatchObject({
      alg: 'RS256',
      kid: (keys.json as unknown as { keys: { kid: string }[] }).keys[0]!.kid,
    });
    const claims = decodeJwt(jwt);
    expect(claims).toMatchObject({
      iss: platform.clientId,
      aud: platform.issuer,
      [`${LTI}message_type`]: 'LtiDeepLinkingResponse',
      [`${LTI}version`]: '1.3.0',
      [`${LTI}deployment_id`]: platform.deploymentId,
    });
    expect(claims[`${DL}data`]).toMatch(/^dl-/);
    expect(claims[`${DL}content_items`]).toEqual([
      {
        type: 'ltiResourceLink',
        title: 'Homework DL',
        url: `${api.url}/lti/launch`,
        custom: { gradeable_id: 'hw_dl' },
        lineItem: { scoreMaximum: 13, label: 'Homework DL', resourceId: 'hw_dl' },
      },
      {
        type: 'ltiResourceLink',
        title: 'Lab DL',
        url: `${api.url}/lti/launch`,
        custom: { gradeable_id: 'lab_dl' },
        lineItem: { scoreMaximum: 4, label: 'Lab DL', resourceId: 'lab_dl' },
      },
    ]);

    // The browser posts the page's form; the platform verifies the response against the tool's key set and makes the links.
    const posted = await postAutoPostPage(html);
    expect(posted.action).toBe(url);
    expect(posted.fields).toEqual({ JWT: jwt });
    expect(posted.answer.status, await posted.answer.text()).toBe(200);
    const created = platform.deepLinks.links.filter((link) => ['hw_dl', 'lab_dl'].includes(link.custom.gradeable_id ?? ''));
    expect(created.map((link) => link.lineItem?.resourceId)).toEqual(['hw_dl', 'lab_dl']);

    const student = await launchToken(world.users.student, { link: created[1]!.id });
    const launched = await api.get('/token', student);
    expect(launched.json.data.launch).toMatchObject({ message_type: 'LtiResourceLinkRequest', gradeable_id: 'lab_dl', roles: ['Student'] });
  });

  it('names the gradeable from the line item alone when the link carries no custom parameter', async () => {
    const headers = await instructorDeepLink({ acceptMultiple: false });
    const answer = await api.postJson('/lti/deep-links', { gradeable_ids: ['hw_dl'] }, headers);
    expect(answer.json.status, answer.text).toBe('success');
    const posted = await postAutoPostPage(answer.json.data.html as string);
    expect(posted.answer.status, await posted.answer.text()).toBe(200);
    const link = platform.deepLinks.links.at(-1)!;
    const student = await launchToken(world.users.student, { link: link.id, claims: { [`${LTI}custom`]: undefined } });
    expect((await api.get('/token', student)).json.data.launch).toMatchObject({ gradeable_id: 'hw_dl' });
  });

  it("the platform refuses a response that does not echo its launch's data", async () => {
    const headers = await instructorDeepLink({ acceptMultiple: true });
    const answer = await api.postJson('/lti/deep-links', { gradeable_ids: ['lab_dl'] }, headers);
    const posted = await postAutoPostPage(answer.json.data.html as string);
    expect(posted.answer.status).toBe(200);
    // The same response again: its data was used.
    const again = await postAutoPostPage(answer.json.data.html as string);
    expect(again.answer.status).toBe(400);
    expect(platform.deepLinks.outcomes.at(-1)).toEqual({ refused: 'data is not the one a launch sent' });
  });

  it('refuses a resource-link launch session, a student, an unlinked LMS course, an API token; each clearly, nothing written', async () => {
    await refused(await launchToken(world.users.instructor, { roles: [ROLES.instructor] }), ['hw_dl'], 403, NEEDS_LAUNCH);
    await refused({ ...world.tokens.instructor, Prefer: 'http-status' }, ['hw_dl'], 403, NEEDS_LAUNCH);
    await refused(
      await launchToken(world.users.student, { deepLinking: {} }),
      ['hw_dl'],
      403,
      `Only an instructor of ${world.course.term}/${world.course.course} adds its gradeables to the LMS.`,
    );
    await refused(
      await instructorDeepLink({}, { contextId: 'lms-course-unlinked' }),
      ['hw_dl'],
      409,
      'This LMS course is not linked to a course here yet: its instructor links it from this launch first, then opens the tool again from the LMS to add gradeables.',
    );
  });

  it("refuses gradeables the launch cannot add: another course's, an unknown one, two where the LMS takes one, one twice, none, no resource links accepted", async () => {
    const headers = await instructorDeepLink({ acceptMultiple: true });
    const { term, course } = world.course;
    await refused(headers, ['hw_dl', 'sibling_dl'], 404, `No gradeable sibling_dl in ${term}/${course}.`);
    await refused(headers, ['no_such_gradeable'], 404, `No gradeable no_such_gradeable in ${term}/${course}.`);
    await refused(headers, ['hw_dl', 'hw_dl'], 400, 'Each gradeable is named once: hw_dl is named twice.');
    await refused(headers, [], 400, 'Name the gradeables to add to the LMS: gradeable_ids, a list of 1 to 50 gradeable ids.');
    await refused(
      await instructorDeepLink({ acceptMultiple: false }),
      ['hw_dl', 'lab_dl'],
      400,
      'The LMS takes one item from this launch: name one gradeable.',
    );
    await refused(
      await instructorDeepLink({ acceptTypes: ['link', 'file'] }),
      ['hw_dl'],
      422,
      'The LMS takes no LTI resource links from this launch (its accept_types lack ltiResourceLink), so no gradeable can be added here.',
    );
  });

  it('refuses a deep-linking launch without settings, or whose return URL is not a URL of a platform', async () => {
    for (const [settings, reason] of [
      [undefined, 'its deep-linking request has no deep_linking_settings'],
      [{ accept_types: ['ltiResourceLink'] }, 'its deep_linking_settings name no deep_link_return_url'],
    ] as const) {
      const answer = await platform.launch(`lms-${world.users.instructor.userId}`, {
        roles: [ROLES.instructor],
        deepLinking: {},
        claims: { [`${DL}deep_linking_settings`]: settings },
      });
      const page = await answer.text();
      expect(answer.status, page).toBe(401);
      expect(page).toContain(reason);
    }
    const foreign = await platform.launch(`lms-${world.users.instructor.userId}`, {
      roles: [ROLES.instructor],
      deepLinking: { returnUrl: 'http://lms.example.edu/return' },
    });
    const page = await foreign.text();
    expect(foreign.status, page).toBe(400);
    expect(page).toContain('The deep_link_return_url must be an absolute https:// URL');
  });
});
