import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ltiRegistrations } from '#shared/data/lti.ts';
import { rotateToolKeyFile } from '#shared/lti/tool-keys.ts';
import { tokenOf } from '../support/courses.ts';
import { startTestApi, type TestApi } from '../support/http.ts';
import { createUser } from '../support/users.ts';

let api: TestApi;
let su: Record<string, string>;
let root: string;
let faculty: Record<string, string>;
let host: string;
beforeAll(async () => {
  api = await startTestApi();
  const superuser = await createUser('superuser', 'lti-root');
  root = superuser.userId;
  su = { Authorization: await tokenOf(api, superuser), Prefer: 'http-status' };
  faculty = { Authorization: await tokenOf(api, await createUser('faculty', 'lti-prof')), Prefer: 'http-status' };
  host = new URL(api.url).host;
});
afterAll(() => api.close());
afterEach(() => vi.unstubAllEnvs());

let issuers = 0;
/** A platform on a public address literal (no name looked up), with an issuer of its own. */
const platform = (fields: Record<string, unknown> = {}) => ({
  issuer: `https://lms-${++issuers}-${Date.now().toString(36)}.example.edu`,
  client_id: 'client-1',
  auth_login_url: 'https://203.0.113.10/mod/lti/auth.php',
  auth_token_url: 'https://203.0.113.10/mod/lti/token.php',
  jwks_url: 'https://203.0.113.10/mod/lti/certs.php',
  ...fields,
});

const stored = async (issuer: string) => (await ltiRegistrations()).filter((registration) => registration.issuer === issuer);

describe('LTI registrations', () => {
  it("a superuser registers a platform and is answered the tool's URLs on the host reached; it is listed, read and removed", async () => {
    const fields = platform({
      deployment_ids: ['1', ' 2 ', '1'],
      user_id_claim: 'https://purl.imsglobal.org/spec/lti/claim/custom#user_username',
      user_id_suffix: '',
      create_users: 'true',
      label: ' Moodle ',
    });
    const created = await api.postJson('/lti/registrations', fields, su);
    expect(created.httpStatus).toBe(200);
    const tool = {
      login_url: `http://${host}/api/lti/login`,
      launch_url: `http://${host}/api/lti/launch`,
      jwks_url: `http://${host}/api/lti/jwks`,
      deep_linking_url: `http://${host}/api/lti/launch`,
      config_url: `http://${host}/api/lti/config`,
    };
    expect(created.json.data).toEqual({
      registration_id: expect.stringMatching(/^lti_/),
      issuer: fields.issuer,
      client_id: 'client-1',
      auth_login_url: fields.auth_login_url,
      auth_token_url: fields.auth_token_url,
      jwks_url: fields.jwks_url,
      deployment_ids: ['1', '2'],
      auth_token_audience: null,
      user_id_claim: 'https://purl.imsglobal.org/spec/lti/claim/custom#user_username',
      user_id_suffix: null,
      create_users: true,
      label: 'Moodle',
      created_at: expect.any(String),
      created_by: root,
      tool,
    });
    const id = created.json.data.registration_id as string;
    expect((await api.get('/lti/registrations', su)).json.data).toContainEqual(created.json.data);
    expect((await api.get(`/lti/registrations/${id}`, su)).json.data).toEqual(created.json.data);
    expect((await api.call('DELETE', `/lti/registrations/${id}`, { headers: su })).json).toEqual({ status: 'success', data: null });
    const gone = await api.get(`/lti/registrations/${id}`, su);
    expect([gone.httpStatus, gone.json.message]).toEqual([404, `No LTI registration ${id}.`]);
    expect(await stored(fields.issuer)).toEqual([]);
    const again = await api.call('DELETE', `/lti/registrations/${id}`, { headers: su });
    expect([again.httpStatus, again.json.message]).toEqual([404, `No LTI registration ${id}.`]);
  });

  it('refuses a second registration of the same issuer and client id, keeping the first as it was', async () => {
    const fields = platform();
    const first = await api.postJson('/lti/registrations', fields, su);
    const second = await api.postJson('/lti/registrations', { ...fields, label: 'again', jwks_url: 'https://203.0.113.11/jwks' }, su);
    expect([second.httpStatus, second.json.message]).toEqual([
      409,
      `The platform ${fields.issuer} with client id client-1 is registered already, as ${first.json.data.registration_id as string}.`,
    ]);
    expect(await stored(fields.issuer)).toEqual([expect.objectContaining({ jwksUrl: fields.jwks_url, label: null })]);
    // Another client id of the same issuer (one Canvas issuer, many developer keys) is another registration.
    expect((await api.postJson('/lti/registrations', { ...fields, client_id: 'client-2' }, su)).httpStatus).toBe(200);
    expect((await stored(fields.issuer)).map((registration) => registration.clientId).sort()).toEqual(['client-1', 'client-2']);
  });

  it('registered at once from several requests, a platform is stored once and removed once, round after round', async () => {
    for (let round = 0; round < 20; round++) {
      const fields = platform({ label: `round ${round}` });
      const answers = await Promise.all([1, 2, 3].map(() => api.postJson('/lti/registrations', fields, su)));
      expect(answers.map((answer) => answer.httpStatus).sort(), `round ${round}`).toEqual([200, 409, 409]);
      const id = answers.find((answer) => answer.httpStatus === 200)!.json.data.registration_id as string;
      expect(answers.filter((answer) => answer.httpStatus === 409).map((answer) => answer.json.message as string)).toEqual([
        expect.stringContaining(`as ${id}.`),
        expect.stringContaining(`as ${id}.`),
      ]);
      expect(await stored(fields.issuer), `round ${round}`).toHaveLength(1);
      const removals = await Promise.all([1, 2].map(() => api.call('DELETE', `/lti/registrations/${id}`, { headers: su })));
      expect(removals.map((answer) => answer.httpStatus).sort(), `round ${round}`).toEqual([200, 404]);
      expect(await stored(fields.issuer), `round ${round}`).toEqual([]);
    }
  });

  it('refuses URLs the service may not reach, or not over https, and writes nothing', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [
        { jwks_url: 'https://127.0.0.1:9/jwks' },
        "The jwks_url's host has the address 127.0.0.1, which is a loopback address; platforms are reached only on public addresses (or hosts LTI_ALLOWED_HOSTS names).",
      ],
      [
        { auth_login_url: 'https://169.254.169.254/latest' },
        "The auth_login_url's host has the address 169.254.169.254, which is a link-local address; platforms are reached only on public addresses (or hosts LTI_ALLOWED_HOSTS names).",
      ],
      [
        { auth_token_url: 'https://10.0.0.8/token' },
        "The auth_token_url's host has the address 10.0.0.8, which is a private network address; platforms are reached only on public addresses (or hosts LTI_ALLOWED_HOSTS names).",
      ],
      [
        { jwks_url: 'http://203.0.113.10/jwks' },
        'The jwks_url must be an absolute https:// URL without a user name, password or fragment.',
      ],
      [{ issuer: 'https://u:p@lms.example.edu' }, 'The issuer must be an absolute https:// URL without a user name, password or fragment.'],
      [{ jwks_url: 'https://no-such-host.invalid/jwks' }, "The jwks_url's host no-such-host.invalid could not be found."],
      [
        { user_id_claim: 'email#address' },
        'The user_id_claim must name a claim of the launch, such as email or sub, or a member of one, as claim-URI#member.',
      ],
      [{ deployment_ids: ['x'.repeat(256)] }, 'A deployment id is at most 255 characters long.'],
      [{ client_id: '  ' }, 'A registration needs issuer, client_id, auth_login_url, auth_token_url and jwks_url.'],
      [{ jwks_url: undefined }, 'A registration needs issuer, client_id, auth_login_url, auth_token_url and jwks_url.'],
    ];
    for (const [change, message] of cases) {
      const fields = platform(change);
      const answer = await api.postJson('/lti/registrations', fields, su);
      expect([answer.httpStatus, answer.json.message], JSON.stringify(change)).toEqual([400, message]);
      expect(await stored(fields.issuer)).toEqual([]);
    }
  });

  it('takes a loopback platform over plain http only where LTI_ALLOWED_HOSTS names its host and port', async () => {
    const local = platform({
      issuer: 'http://127.0.0.1:4010',
      auth_login_url: 'http://127.0.0.1:4010/auth',
      auth_token_url: 'http://127.0.0.1:4010/token',
      jwks_url: 'http://127.0.0.1:4010/jwks',
      client_id: `c-${Date.now()}`,
    });
    expect((await api.postJson('/lti/registrations', local, su)).httpStatus).toBe(400);
    vi.stubEnv('LTI_ALLOWED_HOSTS', '127.0.0.1:4010');
    expect((await api.postJson('/lti/registrations', local, su)).httpStatus).toBe(200);
  });

  it('is for superusers only', async () => {
    const fields = platform();
    const answer = await api.postJson('/lti/registrations', fields, faculty);
    expect([answer.httpStatus, answer.json.message]).toEqual([403, "You don't have access to this endpoint."]);
    expect((await api.get('/lti/registrations', faculty)).httpStatus).toBe(403);
    expect(await stored(fields.issuer)).toEqual([]);
  });
});

describe("the tool's keys and configuration", () => {
  it('publishes the current and the next key; a rotation signs with the published next key and publishes a new one', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'lti-key-'));
    try {
      const file = join(folder, 'lti-key.json');
      await copyFile(process.env.LTI_KEY_FILE!, file);
      vi.stubEnv('LTI_KEY_FILE', file);
      const before = await api.get('/lti/jwks');
      expect(before.headers.get('content-type')).toBe('application/json');
      const [current, next] = (before.json as unknown as { keys: { kid: string; d?: string }[] }).keys;
      expect(current?.d).toBeUndefined();
      const rotated = await rotateToolKeyFile(file);
      expect(rotated.current.kid).toBe(next?.kid);
      const after = (await api.get('/lti/jwks')).json as unknown as { keys: { kid: string }[] };
      expect(after.keys.map((key) => key.kid)).toEqual([next?.kid, rotated.next.kid]);
      expect(after.keys.map((key) => key.kid)).not.toContain(current?.kid);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });

  it("answers the tool's configuration for manual set-up with its URLs, the services' scopes and Canvas's deep-linking placements", async () => {
    const answer = await api.get('/lti/config');
    expect(answer.json).toMatchObject({
      oidc_initiation_url: `http://${host}/api/lti/login`,
      target_link_uri: `http://${host}/api/lti/launch`,
      public_jwk_url: `http://${host}/api/lti/jwks`,
      custom_fields: { user_username: '$User.username' },
    });
    // A Canvas developer key made from it grants what grade passback and roster sync ask the platform's token endpoint for.
    const scopes = (answer.json as unknown as { scopes: string[] }).scopes;
    expect([...scopes].sort()).toEqual(
      [
        'https://purl.imsglobal.org/spec/lti-ags/scope/lineitem',
        'https://purl.imsglobal.org/spec/lti-ags/scope/result.readonly',
        'https://purl.imsglobal.org/spec/lti-ags/scope/score',
        'https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly',
      ].sort(),
    );
    const [canvas] = (answer.json as unknown as { extensions: { settings: { placements: unknown[] } }[] }).extensions;
    expect(canvas!.settings.placements).toEqual([
      { placement: 'course_navigation', message_type: 'LtiResourceLinkRequest', target_link_uri: `http://${host}/api/lti/launch` },
      { placement: 'assignment_selection', message_type: 'LtiDeepLinkingRequest', target_link_uri: `http://${host}/api/lti/launch` },
      { placement: 'link_selection', message_type: 'LtiDeepLinkingRequest', target_link_uri: `http://${host}/api/lti/launch` },
    ]);
  });
});
