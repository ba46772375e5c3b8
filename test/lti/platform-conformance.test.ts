/**
 * The test platform (test/support/lti-platform.ts), which the product's LTI tests run against,
 * checked by code nobody here wrote: ltijs 5.9.9, a certified LTI 1.3 tool library, registered with
 * it as an independent tool. ltijs validates the platform's ID tokens (signature against its key
 * set, iss, aud, nonce, the state bound to its cookie, the LTI claims), produces a deep-linking
 * response the platform's return endpoint must accept, and calls the platform's grade and roster
 * services (AGS line items and scores, NRPS pages) with service tokens it gets itself (client
 * credentials, its private_key_jwt checked against its own key set). If the platform drifts from
 * what a certified tool expects, this test fails, not the product's.
 */
import { generateKeyPairSync } from 'node:crypto';
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
/** ltijs's ID token object of each user's latest resource-link launch: what its services are called with. */
type IdToken = Parameters<Parameters<typeof lti.onConnect>[0]>[0];
const launched = new Map<string, IdToken>();

/** ltijs 5's grade service (its published types name only the methods it deprecated). */
interface LtijsLineItem {
  readonly id: string;
  readonly scoreMaximum: number;
  readonly label: string;
  readonly resourceId?: string;
}
interface LtijsScore {
  readonly userId?: string;
  readonly scoreGiven?: number;
  readonly scoreMaximum?: number;
  readonly activityProgress: string;
  readonly gradingProgress: string;
  readonly comment?: string;
}
interface LtijsGrade {
  getLineItems(token: IdToken, options?: { resourceId?: string }): Promise<{ lineItems: LtijsLineItem[]; next?: string }>;
  createLineItem(token: IdToken, item: Omit<LtijsLineItem, 'id'>): Promise<LtijsLineItem>;
  getLineItemById(token: IdToken, id: string): Promise<LtijsLineItem>;
  submitScore(token: IdToken, lineItemId: string, score: LtijsScore): Promise<LtijsScore & { timestamp: string }>;
}
interface LtijsMembers {
  readonly context: { readonly id: string };
  readonly members: readonly {
    readonly user_id: string;
    readonly roles: readonly string[];
    readonly status?: string;
    readonly name?: string;
  }[];
  readonly next?: string;
}
const grade = () => lti.Grade as unknown as LtijsGrade;
const members = (token: IdToken, options: { limit?: number; pages?: number | false; role?: string }) =>
  lti.NamesAndRoles.getMembers(token, options as never) as unknown as Promise<LtijsMembers>;

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
  lti.onConnect((token, _req, res) => {
    launched.set(token.user, token);
    res.json(seen(token));
  });
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

  it("ltijs finds and creates a line item and posts scores with its own service token; the platform's grade book holds them", async () => {
    const { status, text } = await launch('grace', { roles: [ROLES.instructor], contextId: 'lms-course-ags' });
    expect(status, text).toBe(200);
    const token = launched.get('grace')!;
    const tokensBefore = platform.tokenRequests;

    // Read with the read-only scope ltijs asks for: nothing yet for this resource.
    expect((await grade().getLineItems(token, { resourceId: 'ltijs_score' })).lineItems).toEqual([]);
    const item = await grade().createLineItem(token, { scoreMaximum: 10, label: 'ltijs score', resourceId: 'ltijs_score' });
    expect(item).toMatchObject({ scoreMaximum: 10, label: 'ltijs score', resourceId: 'ltijs_score' });
    expect(platform.grades.lineItems('lms-course-ags')).toEqual([item]);
    expect((await grade().getLineItems(token, { resourceId: 'ltijs_score' })).lineItems).toEqual([item]);
    expect(await grade().getLineItemById(token, item.id)).toEqual(item);

    const sent = await grade().submitScore(token, item.id, {
      userId: 'ada',
      scoreGiven: 7,
      scoreMaximum: 10,
      activityProgress: 'Completed',
      gradingProgress: 'FullyGraded',
    });
    expect(platform.grades.scoreOf('lms-course-ags', 'ltijs_score', 'ada')).toEqual({
      userId: 'ada',
      scoreGiven: 7,
      scoreMaximum: 10,
      activityProgress: 'Completed',
      gradingProgress: 'FullyGraded',
      timestamp: sent.timestamp,
    });
    // Without scoreMaximum ltijs reads it from the line item first (the line item scope beside the score scope).
    const second = await grade().submitScore(token, item.id, {
      userId: 'ada',
      scoreGiven: 9,
      activityProgress: 'Completed',
      gradingProgress: 'FullyGraded',
    });
    expect(platform.grades.scoreOf('lms-course-ags', 'ltijs_score', 'ada')).toMatchObject({
      scoreGiven: 9,
      scoreMaximum: 10,
      timestamp: second.timestamp,
    });
    // ltijs authenticated itself: each token it asked for was granted against its own key set.
    expect(platform.tokenRequests).toBeGreaterThan(tokensBefore);
  });

  it('ltijs is refused a service token whose private_key_jwt its key set does not verify, and posts nothing', async () => {
    const { status, text } = await launch('grace', { roles: [ROLES.instructor], contextId: 'lms-course-forged' });
    expect(status, text).toBe(200);
    const token = launched.get('grace')!;
    const item = await grade().createLineItem(token, { scoreMaximum: 4, label: 'forged', resourceId: 'ltijs_forged' });
    // ltijs signs its assertion with the key its database holds for this platform; replace that key with a stranger's.
    const database = (lti as unknown as { Database: MemoryDatabase }).Database;
    const found = async (collection: string, query: Record<string, unknown>) => {
      const documents = await database.Get(false, collection, query);
      if (!documents) throw new Error(`ltijs holds no ${collection}`);
      return documents[0]!;
    };
    const kid = (await found('platform', { platformUrl: platform.issuer })).kid as string;
    const original = await found('privatekey', { kid });
    const { privateKey } = generateKeyPairSync('rsa', {
      modulusLength: 2048,
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
      publicKeyEncoding: { type: 'spki', format: 'pem' },
    });
    await database.Replace(false, 'privatekey', { kid }, { ...original, key: privateKey });
    await database.Delete('accesstoken', {});
    const posts = platform.grades.scorePosts;
    try {
      await expect(
        grade().submitScore(token, item.id, {
          userId: 'ada',
          scoreGiven: 1,
          scoreMaximum: 4,
          activityProgress: 'Completed',
          gradingProgress: 'FullyGraded',
        }),
      ).rejects.toThrow(/401/);
      expect(platform.grades.scorePosts).toBe(posts);
      expect(platform.grades.scoreOf('lms-course-forged', 'ltijs_forged', 'ada')).toBeUndefined();
    } finally {
      await database.Replace(false, 'privatekey', { kid }, original);
    }
  });

  it("ltijs reads the platform's roster page by page with its own service token", async () => {
    platform.roster.setMembers('lms-course-nrps', [
      { user_id: 'grace', roles: [ROLES.instructor], name: 'Grace Hopper' },
      { user_id: 'ada', roles: [ROLES.learner], name: 'Ada Lovelace', email: 'ada@example.edu' },
      { user_id: 'alan', roles: [ROLES.learner], status: 'Inactive' },
    ]);
    const { status, text } = await launch('grace', { roles: [ROLES.instructor], contextId: 'lms-course-nrps' });
    expect(status, text).toBe(200);
    const token = launched.get('grace')!;
    const pagesBefore = platform.roster.pagesServed;

    const all = await members(token, { limit: 2, pages: false });
    expect(all.context).toMatchObject({ id: 'lms-course-nrps' });
    expect(all.members).toEqual([
      expect.objectContaining({ user_id: 'grace', roles: [ROLES.instructor], status: 'Active', name: 'Grace Hopper' }),
      expect.objectContaining({ user_id: 'ada', roles: [ROLES.learner], status: 'Active', email: 'ada@example.edu' }),
      expect.objectContaining({ user_id: 'alan', roles: [ROLES.learner], status: 'Inactive' }),
    ]);
    expect(platform.roster.pagesServed - pagesBefore).toBe(2);

    // One page: ltijs hands back the platform's next link, and reading it continues where the first page stopped.
    const first = await members(token, { limit: 2, pages: 1 });
    expect(first.members.map((member) => member.user_id)).toEqual(['grace', 'ada']);
    expect(first.next).toBeDefined();
    const rest = (await lti.NamesAndRoles.getMembers(token, { url: first.next } as never)) as unknown as LtijsMembers;
    expect(rest.members.map((member) => member.user_id)).toEqual(['alan']);
  });
});
