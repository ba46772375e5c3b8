/**
 * The test platform (test/support/lti-platform.ts), which the product's LTI tests run against,
 * checked by code nobody here wrote: ltijs 5.9.9, a certified LTI 1.3 tool library, registered with
 * it as an independent tool. ltijs validates the platform's ID tokens (signature against its key
 * set, iss, aud, nonce, the state bound to its cookie, the LTI claims) and produces a deep-linking
 * response the platform's return endpoint must accept. If the platform drifts from what a certified
 * tool expects, this test fails, not the product's.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import ltijs from 'ltijs';
import { MemoryDatabase } from '../support/ltijs-memory-database.ts';
import { ROLES, startLtiPlatform, type LaunchMessage, type LtiTestPlatform } from '../support/lti-platform.ts';

/** Requests to ltijs and the platform, not to the API (no API contract to check them against). */
// eslint-disable-next-line no-restricted-globals -- neither is the API
const toolFetch: typeof fetch = (...args) => fetch(...args);

const lti = ltijs.Provider;
let server: Server;
let toolUrl: string;
let platform: LtiTestPlatform;

/** What ltijs saw of a launch, as its handlers answer it. */
interface Seen {
  readonly messageType: string;
  readonly user: string;
  readonly roles: string[];
  readonly contextId: string | undefined;
  readonly custom: Record<string, string> | undefined;
  readonly lineitem: string | undefined;
  readonly deepLink?: { readonly url: string; readonly jwt: string };
}

beforeAll(async () => {
  lti.setup(
    'conformance-test-encryption-key',
    { plugin: new MemoryDatabase() },
    // The tool's routes where the platform sends a tool's login and launch (its launch URL is the tool's base + /lti/launch).
    // No devMode: the launch must pass ltijs's state cookie check, carried by the platform's browser.
    { appUrl: '/lti/launch', loginUrl: '/lti/login', keysetUrl: '/lti/jwks' },
  );
  const seen = (token: Parameters<Parameters<typeof lti.onConnect>[0]>[0]): Seen => {
    const context = (token as unknown as { platformContext: Record<string, unknown> }).platformContext;
    return {
      messageType: context.messageType as string,
      user: token.user,
      roles: context.roles as string[],
      contextId: (context.context as { id?: string } | undefined)?.id,
      custom: context.custom as Record<string, string> | undefined,
      lineitem: (context.endpoint as { lineitem?: string } | undefined)?.lineitem,
    };
  };
  lti.onConnect((token, _req, res) => res.json(seen(token)));
  lti.onDeepLinking((token, _req, res) => {
    deepLinkingResponse(token, res).catch((error: unknown) => res.status(500).json({ error: String(error) }));
  });
  const deepLinkingResponse = async (token: Parameters<Parameters<typeof lti.onConnect>[0]>[0], res: { json(body: unknown): unknown }) => {
    const items = [
      {
        type: 'ltiResourceLink',
        title: 'ltijs homework',
        url: `${toolUrl}/lti/launch`,
        custom: { gradeable_id: 'ltijs_hw' },
        lineItem: { scoreMaximum: 12, label: 'ltijs homework', resourceId: 'ltijs_hw' },
      },
    ];
    const jwt = await lti.DeepLinking.createDeepLinkingMessage(token, items as never, { message: 'Added.' } as never);
    const settings = (token as unknown as { platformContext: { deepLinkingSettings: { deep_link_return_url: string } } }).platformContext
      .deepLinkingSettings;
    res.json({ ...seen(token), deepLink: { url: settings.deep_link_return_url, jwt: jwt as string } });
  };
  await lti.deploy({ serverless: true });
  server = createServer(lti.app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  toolUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  platform = await startLtiPlatform(toolUrl);
  await lti.registerPlatform({
    url: platform.issuer,
    name: 'Test LMS',
    clientId: platform.clientId,
    authenticationEndpoint: `${platform.issuer}/auth`,
    accesstokenEndpoint: `${platform.issuer}/token`,
    authConfig: { method: 'JWK_SET', key: `${platform.issuer}/jwks` },
  });
  platform.addUser({ sub: 'ada', name: 'Ada Lovelace', given_name: 'Ada', family_name: 'Lovelace', email: 'ada@example.edu' });
  platform.addUser({ sub: 'grace', name: 'Grace Hopper', email: 'grace@example.edu' });
}, 60_000);
afterAll(async () => {
  await platform?.close();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  await lti.close().catch(() => undefined);
});

/** A launch through the platform into ltijs, as the LMS's browser does it: ltijs's redirect with its ltik followed with its session cookie. */
async function launch(sub: string, message: LaunchMessage): Promise<{ status: number; seen?: Seen; text: string }> {
  const answer = await platform.launch(sub, message);
  const location = answer.headers.get('location');
  if (answer.status !== 302 || !location) return { status: answer.status, text: await answer.text() };
  const cookie = answer.headers
    .getSetCookie()
    .map((value) => value.split(';')[0])
    .join('; ');
  const page = await toolFetch(new URL(location, toolUrl), { headers: { cookie } });
  const text = await page.text();
  return { status: page.status, text, ...(page.ok ? { seen: JSON.parse(text) as Seen } : {}) };
}

describe('the test platform, as the certified tool library ltijs sees it', () => {
  it("launches a learner: ltijs accepts the platform's ID token, nonce and state, and reads its claims", async () => {
    const { status, seen, text } = await launch('ada', { roles: [ROLES.learner], custom: { gradeable_id: 'hw1' } });
    expect(status, text).toBe(200);
    expect(seen).toMatchObject({
      messageType: 'LtiResourceLinkRequest',
      user: 'ada',
      roles: [ROLES.learner],
      contextId: 'lms-course-1',
      custom: { gradeable_id: 'hw1' },
    });
  });

  it("ltijs refuses a launch whose ID token the platform's key set does not verify (a sign the check is real)", async () => {
    const form = await platform.launchForm('ada', { roles: [ROLES.learner] });
    const [header, payload] = form.fields.id_token!.split('.');
    const forged = await platform.sign(JSON.parse(Buffer.from(payload!, 'base64url').toString('utf8')) as Record<string, unknown>, {
      key: 'stranger',
    });
    expect(JSON.parse(Buffer.from(header!, 'base64url').toString('utf8'))).toMatchObject({ alg: 'RS256' });
    const answer = await toolFetch(form.action, {
      method: 'POST',
      headers: { cookie: form.toolCookie },
      body: new URLSearchParams({ ...form.fields, id_token: forged }),
      redirect: 'manual',
    });
    expect(answer.status).toBe(401);
    await answer.body?.cancel();
  });

  it('takes the deep-linking response ltijs makes, and its next launch of the created link carries the custom parameters and line item', async () => {
    const { status, seen, text } = await launch('grace', { roles: [ROLES.instructor], deepLinking: { acceptMultiple: false } });
    expect(status, text).toBe(200);
    expect(seen).toMatchObject({ messageType: 'LtiDeepLinkingRequest', user: 'grace' });
    const before = platform.deepLinks.links.length;
    // The browser posts ltijs's response to the platform's return URL.
    const answer = await toolFetch(seen!.deepLink!.url, { method: 'POST', body: new URLSearchParams({ JWT: seen!.deepLink!.jwt }) });
    expect(answer.status, await answer.text()).toBe(200);
    const created = platform.deepLinks.links.slice(before);
    expect(created).toMatchObject([
      {
        title: 'ltijs homework',
        custom: { gradeable_id: 'ltijs_hw' },
        lineItem: { scoreMaximum: 12, label: 'ltijs homework', resourceId: 'ltijs_hw' },
      },
    ]);

    const student = await launch('ada', { roles: [ROLES.learner], link: created[0]!.id });
    expect(student.status, student.text).toBe(200);
    expect(student.seen).toMatchObject({ custom: { gradeable_id: 'ltijs_hw' }, lineitem: created[0]!.lineItem!.id });

    // The same response again: the platform takes a launch's response once.
    const again = await toolFetch(seen!.deepLink!.url, { method: 'POST', body: new URLSearchParams({ JWT: seen!.deepLink!.jwt }) });
    expect(again.status).toBe(400);
    await again.body?.cancel();
  });
});
