import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { LtiRegistration } from '#shared/lti/registration.ts';
import { registrationIdOf } from '#shared/lti/registration.ts';
import { PlatformServiceFailure } from '#shared/lti/service-failure.ts';
import { clientAssertion, serviceToken } from '#shared/lti/service-token.ts';
import { startTestApi, type TestApi } from '../support/http.ts';
import { startLtiPlatform, type LtiTestPlatform } from '../support/lti-platform.ts';
import { AGS_SCOPES, NRPS_SCOPE, requestToken } from '../support/lti-platform-services.ts';
import { closeAll } from '../support/allowed-servers.ts';

let api: TestApi;
let platform: LtiTestPlatform;
/** A server answering every request with the status and headers a test sets. */
let failing: Server;
let failingAnswer: { status: number; headers: Record<string, string>; body: string };
let failingHost: string;
let closedHost: string;
beforeAll(async () => {
  api = await startTestApi();
  platform = await startLtiPlatform(api.url);
  failing = createServer((_req, res) => res.writeHead(failingAnswer.status, failingAnswer.headers).end(failingAnswer.body));
  await new Promise<void>((resolve) => failing.listen(0, '127.0.0.1', resolve));
  failingHost = `127.0.0.1:${(failing.address() as AddressInfo).port}`;
  // A port nothing listens on: a server started and closed again.
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  closedHost = `127.0.0.1:${(closed.address() as AddressInfo).port}`;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  vi.stubEnv('LTI_ALLOWED_HOSTS', [platform.host, failingHost, closedHost].join(','));
}, 120_000);
afterAll(() => closeAll(platform, api, { close: () => new Promise<void>((resolve) => failing.close(() => resolve())) }));

/** The test platform's registration as stored, with `fields` changed. */
function registration(fields: Partial<LtiRegistration> = {}): LtiRegistration {
  return {
    registrationId: registrationIdOf(platform.issuer, platform.clientId),
    issuer: platform.issuer,
    clientId: platform.clientId,
    authLoginUrl: `${platform.issuer}/auth`,
    authTokenUrl: `${platform.issuer}/token`,
    jwksUrl: `${platform.issuer}/jwks`,
    deploymentIds: [platform.deploymentId],
    authTokenAudience: null,
    userIdClaim: 'email',
    userIdSuffix: null,
    createUsers: false,
    label: null,
    createdAt: new Date().toISOString(),
    createdBy: 'admin',
    ...fields,
  };
}

/** The service failure `promise` rejects with. */
async function failureOf(promise: Promise<unknown>): Promise<PlatformServiceFailure> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(PlatformServiceFailure);
  return error as PlatformServiceFailure;
}

describe('LTI service tokens', () => {
  it('obtains a token by the client credentials grant with a private_key_jwt assertion, and reuses it for the same scopes', async () => {
    const before = platform.tokenRequests;
    const first = await serviceToken(registration(), [NRPS_SCOPE]);
    const second = await serviceToken(registration(), [NRPS_SCOPE]);
    expect(second).toBe(first);
    expect(platform.tokenRequests - before).toBe(1);
    // The platform granted it to this tool, with the scope asked for.
    const granted = await platform.provider.ClientCredentials.find(first);
    expect(granted?.clientId).toBe(platform.clientId);
    expect(granted?.scope).toBe(NRPS_SCOPE);
    // Another scope set is another token; the same set in another order is the same one.
    const grades = await serviceToken(registration(), [AGS_SCOPES.score, AGS_SCOPES.lineitem]);
    expect(await serviceToken(registration(), [AGS_SCOPES.lineitem, AGS_SCOPES.score])).toBe(grades);
    expect(grades).not.toBe(first);
    expect(platform.tokenRequests - before).toBe(2);
    expect((await platform.provider.ClientCredentials.find(grades))?.scope?.split(' ').sort()).toEqual(
      [AGS_SCOPES.lineitem, AGS_SCOPES.score].sort(),
    );
  });

  it('asks again once the cached token is about to expire', async () => {
    const scopes = [AGS_SCOPES.resultReadonly];
    const first = await serviceToken(registration(), scopes);
    const before = platform.tokenRequests;
    // The platform's tokens last ten minutes: nine and a half minutes on, the token is within its renewal margin.
    const later = new Date(Date.now() + 9.5 * 60_000);
    const renewed = await serviceToken(registration(), scopes, later);
    expect(renewed).not.toBe(first);
    expect(platform.tokenRequests - before).toBe(1);
  });

  it('signs the assertion for the audience the registration names, else for its token URL', async () => {
    const assertion = await clientAssertion(registration());
    const [header, payload] = assertion
      .split('.')
      .slice(0, 2)
      .map((part) => JSON.parse(Buffer.from(part, 'base64url').toString()));
    expect(header).toMatchObject({ alg: 'RS256', kid: expect.any(String) });
    expect(payload).toMatchObject({ iss: platform.clientId, sub: platform.clientId, aud: `${platform.issuer}/token` });
    expect(payload.exp - payload.iat).toBe(300);
    // The platform takes its issuer as an audience too.
    const scopes = [AGS_SCOPES.lineitemReadonly];
    expect(await serviceToken(registration({ authTokenAudience: platform.issuer }), scopes)).toEqual(expect.any(String));
    const refused = await failureOf(serviceToken(registration({ authTokenAudience: 'https://elsewhere.example' }), scopes));
    expect(refused).toMatchObject({ kind: 'refused', retryable: false, retryAfterSeconds: null });
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(refused.message).toMatch(/^The platform token endpoint answered HTTP 40\d \(invalid_client/);
  });

  it('is refused a replayed assertion and an expired one by the platform', async () => {
    const form = (assertion: string) => ({
      grant_type: 'client_credentials',
      client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
      client_assertion: assertion,
      scope: NRPS_SCOPE,
    });
    const assertion = await clientAssertion(registration());
    const first = await requestToken(platform.issuer, form(assertion));
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const replayed = await requestToken(platform.issuer, form(assertion));
    expect(replayed.status).toBe(401);
    expect(replayed.body.error).toBe('invalid_client');

    const tenMinutesAgo = new Date(Date.now() - 10 * 60_000);
    const expired = await requestToken(platform.issuer, form(await clientAssertion(registration(), tenMinutesAgo)));
    expect(expired.status).toBe(401);
    expect(expired.body.error).toBe('invalid_client');
    // The tool's own grant with that clock is refused the same way, as not worth retrying.
    const refused = await failureOf(serviceToken(registration(), [AGS_SCOPES.lineitem], tenMinutesAgo));
    expect(refused).toMatchObject({ kind: 'refused', status: 401, retryable: false });
  });

  it('says an unreachable token endpoint is retryable, and keeps no failure', async () => {
    const unreachable = await failureOf(serviceToken(registration({ authTokenUrl: `http://${closedHost}/token` }), [NRPS_SCOPE]));
    expect(unreachable).toMatchObject({ kind: 'unreachable', status: null, retryable: true, retryAfterSeconds: null });
    expect(unreachable.message).toBe('The platform token endpoint could not be reached: the connection was refused');
  });

  it("says a 429 or 5xx answer is retryable, with the platform's Retry-After, and another error answer is not", async () => {
    const failingRegistration = registration({ authTokenUrl: `http://${failingHost}/token` });
    failingAnswer = { status: 429, headers: { 'retry-after': '30', 'content-type': 'application/json' }, body: '{"error":"slow_down"}' };
    expect(await failureOf(serviceToken(failingRegistration, [NRPS_SCOPE]))).toMatchObject({
      kind: 'refused',
      status: 429,
      retryable: true,
      retryAfterSeconds: 30,
      message: 'The platform token endpoint answered HTTP 429 (slow_down)',
    });
    failingAnswer = { status: 503, headers: { 'content-type': 'text/html' }, body: '<h1>maintenance</h1>' };
    expect(await failureOf(serviceToken(failingRegistration, [NRPS_SCOPE]))).toMatchObject({
      status: 503,
      retryable: true,
      retryAfterSeconds: null,
    });
    failingAnswer = { status: 400, headers: { 'retry-after': '30' }, body: '{"error":"invalid_scope"}' };
    expect(await failureOf(serviceToken(failingRegistration, [NRPS_SCOPE]))).toMatchObject({
      status: 400,
      retryable: false,
      retryAfterSeconds: null,
    });
    // A 200 that holds no token is not one.
    failingAnswer = { status: 200, headers: { 'content-type': 'application/json' }, body: '{"token_type":"Bearer"}' };
    expect(await failureOf(serviceToken(failingRegistration, [NRPS_SCOPE]))).toMatchObject({ kind: 'refused', retryable: false });
  });
});
