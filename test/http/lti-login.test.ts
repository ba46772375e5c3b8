import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageTitle } from '#shared/http/platform-answers.ts';
import { hashOf } from '#shared/lti/login.ts';
import { tokenOf } from '../support/courses.ts';
import { startTestApi, type Answer, type TestApi } from '../support/http.ts';
import { createUser } from '../support/users.ts';
import { differences, snapshotTables } from '../hardening/support.ts';

let api: TestApi;
let su: Record<string, string>;
let launchUrl: string;
beforeAll(async () => {
  api = await startTestApi();
  su = { Authorization: await tokenOf(api, await createUser('superuser', 'lti-login-root')), Prefer: 'http-status' };
  launchUrl = `${api.url}/lti/launch`;
});
afterAll(() => api.close());

let issuers = 0;
const newIssuer = () => `https://lms-login-${++issuers}-${Date.now().toString(36)}.example.edu`;

/** Registers a platform (on a public address literal: no name is looked up). */
async function register(issuer: string, clientId: string, fields: Record<string, unknown> = {}) {
  const answer = await api.postJson(
    '/lti/registrations',
    {
      issuer,
      client_id: clientId,
      auth_login_url: 'https://203.0.113.10/mod/lti/auth.php?site=1',
      auth_token_url: 'https://203.0.113.10/mod/lti/token.php',
      jwks_url: 'https://203.0.113.10/mod/lti/certs.php',
      ...fields,
    },
    su,
  );
  expect(answer.json.status, answer.text).toBe('success');
}

const login = (fields: Record<string, string>) => api.get(`/lti/login?${new URLSearchParams(fields)}`);

/** The state items stored, by the hash of their state. */
async function states(): Promise<Record<string, unknown>[]> {
  const { Lti = [] } = await snapshotTables();
  return Lti.filter((item) => item.entry === 'state');
}

/** A refused login: an HTML page with this status, titled with the cause, and nothing written. */
async function refused(
  fields: Record<string, string>,
  status: number,
  title: string,
  send: (fields: Record<string, string>) => Promise<Answer> = login,
) {
  const before = await snapshotTables();
  const answer = await send(fields);
  expect(answer.httpStatus, answer.text).toBe(status);
  expect(answer.headers.get('content-type')).toMatch(/^text\/html/);
  expect(pageTitle(answer.text)).toEqual(title);
  expect(answer.headers.get('set-cookie')).toBeNull();
  expect(differences(before, await snapshotTables())).toEqual([]);
}

describe('LTI login (third-party initiated)', () => {
  it("redirects to the platform's authorization endpoint with a fresh state and nonce, keeping the state ten minutes, hashed, and no cookie", async () => {
    const issuer = newIssuer();
    await register(issuer, 'client-a', { deployment_ids: ['dep-1'] });
    const before = Date.now();
    const answer = await login({
      iss: issuer,
      client_id: 'client-a',
      login_hint: 'hint-42',
      lti_message_hint: 'message-7',
      lti_deployment_id: 'dep-1',
      target_link_uri: launchUrl,
    });
    expect(answer.httpStatus, answer.text).toBe(302);
    expect(answer.headers.get('set-cookie')).toBeNull();
    const location = new URL(answer.headers.get('location') ?? '');
    expect(`${location.origin}${location.pathname}`).toBe('https://203.0.113.10/mod/lti/auth.php');
    const parameters = Object.fromEntries(location.searchParams);
    expect(parameters).toEqual({
      site: '1',
      scope: 'openid',
      response_type: 'id_token',
      response_mode: 'form_post',
      prompt: 'none',
      client_id: 'client-a',
      redirect_uri: launchUrl,
      login_hint: 'hint-42',
      lti_message_hint: 'message-7',
      state: expect.stringMatching(/^[\w-]{43}$/),
      nonce: expect.stringMatching(/^[\w-]{43}$/),
    });
    const stored = (await states()).find((item) => item.key === `state#${hashOf(parameters.state!)}`);
    expect(stored).toMatchObject({ nonce: parameters.nonce, loginHint: 'hint-42', messageHint: 'message-7', deploymentId: 'dep-1' });
    const expiresAt = (stored?.expiresAt as number) * 1000;
    expect(expiresAt).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000 + 600_000);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + 600_000);
    // No item holds the state as the browser carries it.
    expect(JSON.stringify(await states())).not.toContain(parameters.state);

    // Another login of the same person: another state and nonce.
    const again = new URL(
      (await login({ iss: issuer, client_id: 'client-a', login_hint: 'hint-42', target_link_uri: launchUrl })).headers.get('location') ??
        '',
    );
    expect(again.searchParams.get('state')).not.toBe(parameters.state);
    expect(again.searchParams.get('nonce')).not.toBe(parameters.nonce);
    expect(again.searchParams.has('lti_message_hint')).toBe(false);
  });

  it('takes the login as a form too, and without a client_id when the issuer has one registration', async () => {
    const issuer = newIssuer();
    await register(issuer, 'only-client');
    const answer = await api.postForm('/lti/login', { iss: issuer, login_hint: 'h', target_link_uri: launchUrl });
    expect(answer.httpStatus, answer.text).toBe(302);
    expect(new URL(answer.headers.get('location') ?? '').searchParams.get('client_id')).toBe('only-client');
  });

  it('refuses, naming the cause on an HTML page and writing nothing, a login it cannot start', async () => {
    const issuer = newIssuer();
    await register(issuer, 'one', { deployment_ids: ['dep-1'] });
    await register(issuer, 'two');
    const base = { iss: issuer, login_hint: 'h', target_link_uri: launchUrl };
    await refused({ ...base }, 400, `The issuer ${issuer} has several LTI registrations here; its login must name the client_id.`);
    await refused({ ...base, client_id: 'three' }, 404, `No LTI registration for the issuer ${issuer} with client id three.`);
    await refused(
      { ...base, iss: newIssuer(), client_id: 'one' },
      404,
      expect.stringMatching(/^No LTI registration for the issuer https:\/\/lms-login-.* with client id one\.$/) as unknown as string,
    );
    await refused(
      { ...base, client_id: 'one', lti_deployment_id: 'dep-2' },
      403,
      'The deployment dep-2 is not one this LTI registration allows.',
    );
    await refused(
      { ...base, client_id: 'one', target_link_uri: 'https://elsewhere.example.edu/api/lti/launch' },
      400,
      `The target_link_uri must lead to this tool (${launchUrl}).`,
    );
    await refused(
      { iss: issuer, client_id: 'one', target_link_uri: launchUrl },
      400,
      'An LTI login needs iss, login_hint and target_link_uri.',
    );
    await refused({ ...base, client_id: 'one' }, 415, 'Unsupported Content-Type. Send application/x-www-form-urlencoded.', (fields) =>
      api.postJson('/lti/login', fields),
    );
  });
});
