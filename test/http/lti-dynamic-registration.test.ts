import { createHash } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { ltiRegistrations } from '#shared/data/lti.ts';
import { pageTitle } from '#shared/http/platform-answers.ts';
import { inviteRegistration } from '#shared/lti/dynamic-registration.ts';
import { hashOf } from '#shared/lti/login.ts';
import { tokenOf } from '../support/courses.ts';
import { startTestApi, type Answer, type TestApi } from '../support/http.ts';
import { startRegistrationPlatform, TOOL_CONFIGURATION, type RegistrationPlatform } from '../support/lti-registration-platform.ts';
import { createUser } from '../support/users.ts';
import { differences, snapshotTables } from '../hardening/support.ts';

let api: TestApi;
let platform: RegistrationPlatform;
let su: Record<string, string>;
let root: string;
let faculty: Record<string, string>;
/** The tool as the platform reaches it: https, as behind API Gateway. */
let toolBase: string;
beforeAll(async () => {
  api = await startTestApi();
  platform = await startRegistrationPlatform();
  const superuser = await createUser('superuser', 'dynreg-root');
  root = superuser.userId;
  su = { Authorization: await tokenOf(api, superuser), Prefer: 'http-status' };
  faculty = { Authorization: await tokenOf(api, await createUser('faculty', 'dynreg-prof')), Prefer: 'http-status' };
  toolBase = `https://${new URL(api.url).host}`;
});
afterAll(async () => {
  await platform.close();
  await api.close();
});
beforeEach(() => vi.stubEnv('LTI_ALLOWED_HOSTS', platform.hosts.join(',')));
afterEach(() => vi.unstubAllEnvs());

/** A new invitation's secret, issued by the superuser. */
async function invite(fields: Record<string, unknown> = {}): Promise<string> {
  const answer = await api.postJson('/lti/registrations/invitations', fields, su);
  expect(answer.httpStatus, answer.text).toBe(200);
  return new URL(answer.json.data.url as string).searchParams.get('invitation')!;
}

/** The LMS opening the invitation URL with its configuration and registration token. */
const register = (query: Record<string, string>): Promise<Answer> =>
  api.get(`/lti/register?${new URLSearchParams(query)}`, { 'X-Forwarded-Proto': 'https' });

const opened = (invitation: string, fields: Record<string, string> = {}) =>
  register({ invitation, openid_configuration: platform.configurationUrl, registration_token: platform.registrationToken, ...fields });

/** The invitation stored for this secret, if any. */
const invitation = async (secret: string) =>
  ((await snapshotTables()).Lti ?? []).find((item) => item.key === `invitation#${hashOf(secret)}`);

/** The tables, each item's attributes in one order (an item written again may come back in another). */
async function tables() {
  const snapshot = await snapshotTables();
  const sorted = (item: Record<string, unknown>) => Object.fromEntries(Object.entries(item).sort(([a], [b]) => a.localeCompare(b)));
  return Object.fromEntries(Object.entries(snapshot).map(([table, items]) => [table, items.map(sorted)]));
}

/** A refused register: an HTML page with this status naming the cause, nothing written here and nothing registered there. */
async function refused(send: () => Promise<Answer>, status: number, title: string | RegExp) {
  const before = await tables();
  const clients = platform.registered();
  const answer = await send();
  expect(answer.httpStatus, answer.text).toBe(status);
  expect(answer.headers.get('content-type')).toMatch(/^text\/html/);
  if (typeof title === 'string') expect(pageTitle(answer.text)).toBe(title);
  else expect(pageTitle(answer.text)).toMatch(title);
  expect(answer.text).not.toContain('<script');
  expect(differences(before, await tables())).toEqual([]);
  expect(platform.registered()).toBe(clients);
}

describe('LTI Dynamic Registration', () => {
  it("an LMS opening a superuser's invitation registers the tool at the platform, and the platform's registration is stored as a manual one", async () => {
    const invited = await api.postJson(
      '/lti/registrations/invitations',
      { label: ' Dynamic LMS ', user_id_claim: 'sub', user_id_suffix: '@lms.example.edu', create_users: true },
      su,
    );
    expect(invited.httpStatus, invited.text).toBe(200);
    expect(invited.json.data).toEqual({
      url: expect.stringMatching(new RegExp(`^http://${new URL(api.url).host}/api/lti/register\\?invitation=[\\w-]{43}$`)),
      expires_at: expect.any(String),
      label: 'Dynamic LMS',
      user_id_claim: 'sub',
      user_id_suffix: '@lms.example.edu',
      create_users: true,
    });
    const expiresIn = Date.parse(invited.json.data.expires_at as string) - Date.now();
    expect(expiresIn).toBeGreaterThan(3500_000);
    expect(expiresIn).toBeLessThanOrEqual(3600_000);
    const secret = new URL(invited.json.data.url as string).searchParams.get('invitation')!;
    // Stored under its hash only.
    expect(await invitation(secret)).toBeDefined();
    expect(JSON.stringify((await snapshotTables()).Lti)).not.toContain(secret);

    const answer = await opened(secret);
    expect(answer.httpStatus, answer.text).toBe(200);
    expect(pageTitle(answer.text)).toBe('The tool is registered.');
    const script = /<script>([^<]*)<\/script>/.exec(answer.text)?.[1] ?? '';
    expect(script).toContain('org.imsglobal.lti.close');
    expect(script).toContain('window.parent');
    expect(script).toContain('window.opener');
    const hash = createHash('sha256').update(script).digest('base64');
    expect(answer.headers.get('content-security-policy')).toBe(`default-src 'none'; script-src 'sha256-${hash}'`);

    const listed = (await api.get('/lti/registrations', su)).json.data as Record<string, unknown>[];
    const stored = listed.filter((registration) => registration.issuer === platform.issuer);
    expect(stored).toHaveLength(1);
    const registration = stored[0]!;
    expect(registration).toMatchObject({
      issuer: platform.issuer,
      auth_login_url: `${platform.issuer}/auth`,
      auth_token_url: `${platform.issuer}/token`,
      jwks_url: `${platform.issuer}/jwks`,
      deployment_ids: [platform.deploymentId],
      auth_token_audience: null,
      user_id_claim: 'sub',
      user_id_suffix: '@lms.example.edu',
      create_users: true,
      label: 'Dynamic LMS',
      created_by: root,
    });
    // The platform holds the tool's client under the client id stored here.
    const client = await platform.client(registration.client_id as string);
    expect(client).toMatchObject({
      application_type: 'web',
      response_types: ['id_token'],
      grant_types: expect.arrayContaining(['implicit', 'client_credentials']),
      redirect_uris: [`${toolBase}/api/lti/launch`],
      initiate_login_uri: `${toolBase}/api/lti/login`,
      jwks_uri: `${toolBase}/api/lti/jwks`,
      token_endpoint_auth_method: 'private_key_jwt',
      client_name: 'Dynamic LMS',
      scope: expect.stringContaining('https://purl.imsglobal.org/spec/lti-ags/scope/score'),
      [TOOL_CONFIGURATION]: expect.objectContaining({
        domain: new URL(api.url).host,
        target_link_uri: `${toolBase}/api/lti/launch`,
        messages: [{ type: 'LtiResourceLinkRequest' }, { type: 'LtiDeepLinkingRequest', target_link_uri: `${toolBase}/api/lti/launch` }],
      }),
    });
    expect(await invitation(secret)).toBeUndefined();

    // The invitation is used: opening it again registers nothing.
    await refused(() => opened(secret), 404, 'This registration invitation is unknown or was used already; ask a superuser for a new one.');
  });

  it('refuses a register it cannot make, naming the cause on a page and writing nothing', async () => {
    const secret = await invite();
    await refused(
      () => register({ openid_configuration: platform.configurationUrl }),
      400,
      'A dynamic registration needs invitation and openid_configuration: open the invitation URL from the LMS.',
    );
    await refused(
      () => opened('made-up'),
      404,
      'This registration invitation is unknown or was used already; ask a superuser for a new one.',
    );
    // The configuration read from another origin than its issuer's (localhost, not 127.0.0.1).
    const [, elsewhere] = platform.hosts;
    await refused(
      () => opened(secret, { openid_configuration: `http://${elsewhere}/.well-known/openid-configuration` }),
      400,
      `The platform's issuer ${platform.issuer} is not on the origin of its configuration's URL (http://${elsewhere}).`,
    );
    await refused(
      () => opened(secret, { openid_configuration: `${platform.issuer}/no-such-configuration` }),
      422,
      "The platform's configuration could not be read: HTTP 404.",
    );
    await refused(
      () => opened(secret, { openid_configuration: 'http://203.0.113.10/.well-known/openid-configuration' }),
      400,
      'The openid_configuration must be an absolute https:// URL without a user name, password or fragment.',
    );
    await refused(
      () => opened(secret, { openid_configuration: 'https://127.0.0.1:1/.well-known/openid-configuration' }),
      400,
      "The openid_configuration's host has the address 127.0.0.1, which is a loopback address; platforms are reached only on public addresses (or hosts LTI_ALLOWED_HOSTS names).",
    );
    // The platform refuses the registration token: the invitation stays usable, and is used with the right one.
    await refused(
      () => opened(secret, { registration_token: 'not-the-platform-token' }),
      422,
      /^The platform did not register the tool: HTTP 401, invalid_token/,
    );
    await refused(() => opened(secret, { registration_token: '' }), 422, /^The platform did not register the tool: HTTP 401/);
    expect((await opened(secret)).httpStatus).toBe(200);
  });

  it('refuses an expired invitation, writing nothing', async () => {
    const issued = await inviteRegistration({}, root, toolBase, new Date(Date.now() - 3601_000));
    const secret = new URL(issued.url).searchParams.get('invitation')!;
    await refused(
      () => opened(secret),
      403,
      `This registration invitation expired at ${issued.expires_at}; ask a superuser for a new one.`,
    );
  });

  it('only a superuser invites', async () => {
    const before = await snapshotTables();
    const answer = await api.postJson('/lti/registrations/invitations', { label: 'Not mine' }, faculty);
    expect(answer.httpStatus).toBe(403);
    expect(differences(before, await snapshotTables())).toEqual([]);
  });

  it('one invitation opened by several registers at once registers the tool exactly once', async () => {
    const ROUNDS = 12;
    const AT_ONCE = 3;
    for (let round = 0; round < ROUNDS; round++) {
      const secret = await invite({ label: `Race ${round}` });
      const registrations = (await ltiRegistrations()).length;
      const clients = platform.registered();
      const answers = await Promise.all(Array.from({ length: AT_ONCE }, () => opened(secret)));
      const statuses = answers.map((answer) => answer.httpStatus).sort();
      expect(
        statuses.filter((status) => status === 200),
        `round ${round}: ${statuses.join(', ')}`,
      ).toHaveLength(1);
      // The others were told the invitation was being used, or was used.
      expect(statuses.every((status) => status === 200 || status === 404 || status === 409)).toBe(true);
      expect((await ltiRegistrations()).length).toBe(registrations + 1);
      expect(platform.registered()).toBe(clients + 1);
      expect(await invitation(secret)).toBeUndefined();
    }
  });
});
