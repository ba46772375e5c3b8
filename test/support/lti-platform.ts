/**
 * An LTI 1.3 platform (an LMS) on loopback for the launch tests, built on a real, certified
 * OpenID provider (`oidc-provider`, as test/support/oidc-provider.ts): the platform's half of the
 * launch is that provider's implicit `id_token` flow with `response_mode=form_post` and
 * `prompt=none` (Security Framework 1.0 §5.1.1), its signing keys and JWKS. This module adds only
 * what is LTI's own: the launch's claims, chosen per `lti_message_hint`, and the LMS user's
 * session (signed in programmatically for the `login_hint`, as an LMS user already is when they
 * click a link). Its keys can be rotated, and its JWKS made unreachable.
 *
 * `launch` drives the whole flow with plain fetch, as the LMS's browser would: the tool's login,
 * the redirect to the platform, its auto-submitted form posted back to the tool's launch URL.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { importJWK, SignJWT, type JWTPayload } from 'jose';
import { Provider } from 'oidc-provider';
import { newKey, type SigningKey } from './oidc-provider.ts';
import { RosterService, serviceTokenSettings } from './lti-platform-services.ts';
import { gradeService, type PlatformGrades } from './lti-platform-grades.ts';
import { deepLinkingPlatform, RETURN_PATH, type CreatedLink, type DeepLinkingOffer, type ReturnOutcome } from './lti-deep-linking.ts';

/** Requests to the platform, not to the API (no API contract to check them against). */
// eslint-disable-next-line no-restricted-globals -- the platform is not the API
const platformFetch: typeof fetch = (...args) => fetch(...args);

export const LTI = 'https://purl.imsglobal.org/spec/lti/claim/';
export const MEMBERSHIP = 'http://purl.imsglobal.org/vocab/lis/v2/membership';
export const ROLES = {
  instructor: `${MEMBERSHIP}#Instructor`,
  administrator: `${MEMBERSHIP}#Administrator`,
  teachingAssistant: `${MEMBERSHIP}/Instructor#TeachingAssistant`,
  grader: `${MEMBERSHIP}/Instructor#Grader`,
  learner: `${MEMBERSHIP}#Learner`,
  mentor: `${MEMBERSHIP}#Mentor`,
} as const;

/** A person at the platform: their `sub` and the profile claims a launch carries. */
export interface PlatformUser {
  readonly sub: string;
  readonly email?: string;
  readonly email_verified?: boolean | string;
  readonly name?: string;
  readonly given_name?: string;
  readonly family_name?: string;
  /** Any other claims of every launch of theirs (a custom user name, `lis`). */
  readonly claims?: Record<string, unknown>;
}

/** What one launch is: its LTI claims, beyond those every launch carries. */
export interface LaunchMessage {
  readonly roles?: readonly string[];
  readonly contextId?: string | null;
  readonly messageType?: string;
  readonly deploymentId?: string;
  readonly custom?: Record<string, string>;
  /** A deep-linking launch (message type LtiDeepLinkingRequest) with these settings. */
  readonly deepLinking?: DeepLinkingOffer;
  /** A launch of a resource link the platform made from a deep-linking response (its custom parameters and line item). */
  readonly link?: string;
  /** Any claim replaced or added (undefined removes it). */
  readonly claims?: Record<string, unknown>;
}

export interface LtiTestPlatform {
  readonly issuer: string;
  readonly clientId: string;
  readonly deploymentId: string;
  /** `host:port`, for LTI_ALLOWED_HOSTS. */
  readonly host: string;
  /** The fields of `POST /api/lti/registrations` for this platform. */
  registration(fields?: Record<string, unknown>): Record<string, unknown>;
  /** A person at the platform (the profile claims of their launches). */
  addUser(user: PlatformUser): void;
  /** The whole launch through the platform, as the LMS's browser does it: the tool's answer to the form post. */
  launch(user: string, message?: LaunchMessage): Promise<Response>;
  /** The launch up to the platform's auto-submitted form (not posted): where it goes and its fields (id_token, state). */
  launchForm(user: string, message?: LaunchMessage): Promise<{ action: string; fields: Record<string, string>; toolCookie: string }>;
  /** The third-party initiated login for a launch a real browser makes: the tool's login URL and the fields the platform posts to it. */
  loginInitiation(user: string, message?: LaunchMessage): { url: string; fields: Record<string, string> };
  /** Signs the user in at the platform as their browser would: the platform's session cookies, for a real browser to hold. */
  sessionCookies(user: string): Promise<{ name: string; value: string }[]>;
  /** The tool's login only: the state and nonce the platform would be sent. */
  login(user: string, message?: LaunchMessage): Promise<{ state: string; nonce: string }>;
  /** The claims the platform would put in a launch's ID token (for tokens the tests sign themselves). */
  claimsOf(user: string, message?: LaunchMessage): Record<string, unknown>;
  /** A token signed with the platform's current key (or the key named), claims as given. */
  sign(payload: JWTPayload, options?: { kid?: string; key?: 'current' | 'stranger' }): Promise<string>;
  /** A new signing key; the previous stays published beside it. Answers the new key id. */
  rotateKeys(): Promise<string>;
  /** While true, the JWKS answers 503. */
  keysUnreachable(unreachable: boolean): void;
  /** How often the JWKS was asked for. */
  readonly keyFetches: number;
  /** How often the tool asked the token endpoint for a service token (granted or not). */
  readonly tokenRequests: number;
  /** The platform's OpenID provider, for its services' bearer checks (lti-platform-services.ts). */
  readonly provider: Provider;
  /** The platform's roster service (NRPS): the members of its LMS courses, set by the test. */
  readonly roster: RosterService;
  /** Its grade service (AGS): line items, the scores held, and fault switches (lti-platform-grades.ts). */
  readonly grades: PlatformGrades;
  /** The resource links made from the tool's deep-linking responses, and what the return endpoint made of each response. */
  readonly deepLinks: { readonly links: readonly CreatedLink[]; readonly outcomes: readonly ReturnOutcome[] };
  close(): Promise<void>;
}

/** The LTI claims a launch's ID token carries (the provider releases them with the `openid` scope). */
const LTI_CLAIMS = [
  'message_type',
  'version',
  'deployment_id',
  'target_link_uri',
  'resource_link',
  'roles',
  'context',
  'custom',
  'tool_platform',
  'lis',
].map((name) => `${LTI}${name}`);
const DL_SETTINGS = 'https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings';
const SERVICE_CLAIMS = [
  DL_SETTINGS,
  'https://purl.imsglobal.org/spec/lti-ags/claim/lineitem',
  'https://purl.imsglobal.org/spec/lti-ags/claim/endpoint',
  'https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice',
];

/**
 * Starts the platform for the tool at `toolUrl` (the API's base, `http://127.0.0.1:port/api`):
 * its client is registered with the tool's launch URL as redirect URI. `port`: a port chosen
 * before the tool was deployed, where the tool's settings name the platform's host.
 */
export async function startLtiPlatform(
  toolUrl: string,
  options: { clientId?: string; deploymentId?: string; port?: number } = {},
): Promise<LtiTestPlatform> {
  const clientId = options.clientId ?? `tool-${randomUUID().slice(0, 8)}`;
  const deploymentId = options.deploymentId ?? 'deployment-1';
  const launchUrl = `${toolUrl}/lti/launch`;
  const users = new Map<string, PlatformUser>();
  const messages = new Map<string, LaunchMessage>();
  const keys: SigningKey[] = [await newKey('lms')];
  const stranger = await newKey('lms');
  let unreachable = false;
  let keyFetches = 0;
  let tokenRequests = 0;
  const services = serviceTokenSettings(toolUrl);
  const roster = new RosterService();
  let handle: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
  let provider: Provider | undefined;

  const server: Server = createServer((req, res) => {
    const { pathname } = new URL(req.url ?? '/', 'http://platform');
    if (pathname === '/jwks') {
      keyFetches++;
      if (unreachable) {
        res.writeHead(503, { 'content-type': 'text/plain' }).end('down for maintenance');
        return;
      }
    }
    if (pathname === '/token' && req.method === 'POST') tokenRequests++;
    if (grades.handle(req, res, pathname)) return;
    if (pathname === RETURN_PATH && req.method === 'POST') {
      deepLinking.handleReturn(req, res);
      return;
    }
    if (/^\/interaction\/[^/]+$/.test(pathname) && provider) {
      signIn(provider, req, res).catch((error: unknown) => res.writeHead(500, { 'content-type': 'text/plain' }).end(String(error)));
      return;
    }
    if (provider && roster.serve(provider, issuer, req, res)) return;
    handle?.(req, res);
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  const issuer = `http://${host}`;
  const grades: PlatformGrades = gradeService(issuer, () => provider!);
  const deepLinking = deepLinkingPlatform({ issuer, clientId, deploymentId, toolUrl });

  const claimsOf = (sub: string, message: LaunchMessage = {}): Record<string, unknown> => {
    const user = users.get(sub) ?? { sub };
    const { sub: _, claims: userClaims, ...profile } = user;
    const contextId = message.contextId === undefined ? 'lms-course-1' : message.contextId;
    const claims: Record<string, unknown> = {
      ...profile,
      ...userClaims,
      [`${LTI}message_type`]: message.messageType ?? (message.deepLinking ? 'LtiDeepLinkingRequest' : 'LtiResourceLinkRequest'),
      [`${LTI}version`]: '1.3.0',
      [`${LTI}deployment_id`]: message.deploymentId ?? deploymentId,
      [`${LTI}target_link_uri`]: launchUrl,
      ...(message.deepLinking ? {} : { [`${LTI}resource_link`]: { id: 'resource-link-1', title: 'Homework' } }),
      [`${LTI}roles`]: [...(message.roles ?? [ROLES.learner])],
      ...(contextId === null ? {} : { [`${LTI}context`]: { id: contextId, label: 'CS 101', title: 'Intro', type: ['CourseOffering'] } }),
      ...(message.custom ? { [`${LTI}custom`]: message.custom } : {}),
      [`${LTI}tool_platform`]: { guid: 'test-platform', name: 'Test LMS', product_family_code: 'test' },
      'https://purl.imsglobal.org/spec/lti-ags/claim/endpoint': {
        scope: ['https://purl.imsglobal.org/spec/lti-ags/scope/lineitem', 'https://purl.imsglobal.org/spec/lti-ags/scope/score'],
        lineitems: `${issuer}/courses/${contextId ?? 'none'}/lineitems`,
      },
      'https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice': {
        context_memberships_url: `${issuer}/courses/${contextId ?? 'none'}/memberships`,
        service_versions: ['2.0'],
      },
      ...(message.link ? deepLinking.linkClaims(message.link) : {}),
    };
    // A claim given as undefined is left out.
    return Object.fromEntries(Object.entries({ ...claims, ...(message.claims ?? {}) }).filter(([, value]) => value !== undefined));
  };

  const build = () => {
    provider = new Provider(issuer, {
      clients: [
        {
          client_id: clientId,
          application_type: 'web',
          redirect_uris: [launchUrl],
          response_types: ['id_token'],
          ...services.client,
        },
      ],
      ...services.provider,
      jwks: { keys: keys.map((key) => key.privateJwk) },
      cookies: { keys: [randomBytes(32).toString('base64url')] },
      responseTypes: ['id_token'],
      extraParams: ['lti_message_hint'],
      features: { devInteractions: { enabled: false }, clientCredentials: services.clientCredentials },
      // A launch asks for `openid` only, and carries the person's profile as LMSs send it (Canvas with privacy "Public").
      claims: {
        openid: ['sub', 'name', 'given_name', 'family_name', 'email', 'email_verified', ...LTI_CLAIMS, ...SERVICE_CLAIMS],
      },
      conformIdTokenClaims: false,
      interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
      ttl: { Interaction: 600, Session: 3600, Grant: 3600, IdToken: 300 },
      findAccount: (ctx: { oidc?: { params?: Record<string, unknown> } }, sub: string) => ({
        accountId: sub,
        claims: () => {
          const hint = ctx.oidc?.params?.lti_message_hint;
          return { sub, ...claimsOf(sub, typeof hint === 'string' ? messages.get(hint) : undefined) };
        },
      }),
    });
    // The tool's launch URL is http on loopback in tests: the provider's https rule for implicit clients is for real ones.
    const schema = provider.Client.Schema.prototype;
    const invalidate = schema.invalidate;
    schema.invalidate = function (message: string, code?: string) {
      if (code === 'implicit-force-https' || code === 'implicit-forbid-localhost') return;
      invalidate.call(this, message, code);
    };
    handle = provider.callback();
  };
  build();

  const messageHint = (message: LaunchMessage): string => {
    const hint = randomUUID();
    // A deep-linking launch's settings are made once, with the hint: their `data` is what the return endpoint expects back.
    const contextId = message.contextId === undefined ? 'lms-course-1' : (message.contextId ?? 'none');
    const settings = message.deepLinking ? { [DL_SETTINGS]: deepLinking.settingsClaim(contextId, message.deepLinking) } : {};
    messages.set(hint, { ...message, claims: { ...settings, ...message.claims } });
    return hint;
  };

  const initiation = (sub: string, hint: string) => ({
    iss: issuer,
    client_id: clientId,
    login_hint: sub,
    lti_message_hint: hint,
    target_link_uri: launchUrl,
    lti_deployment_id: deploymentId,
  });

  const toolLogin = async (sub: string, hint: string) => {
    const answer = await platformFetch(`${toolUrl}/lti/login`, {
      method: 'POST',
      body: new URLSearchParams(initiation(sub, hint)),
      redirect: 'manual',
    });
    const location = answer.headers.get('location');
    if (answer.status !== 302 || !location) throw new Error(`the tool's login answered ${answer.status}: ${await answer.text()}`);
    // The browser keeps what the tool's login set (a tool that binds its state to a cookie, as ltijs does) for the launch's post.
    const toolCookie = answer.headers
      .getSetCookie()
      .map((cookie) => cookie.split(';')[0])
      .join('; ');
    return { authorization: new URL(location), toolCookie };
  };

  const launchForm = async (sub: string, message: LaunchMessage = {}) => {
    const browser = new Browser();
    const { authorization, toolCookie } = await toolLogin(sub, messageHint(message));
    // The LMS user is signed in at the platform (as they are when they click the link), then the tool's request is answered.
    await browser.signIn(authorization, sub);
    return { ...(await browser.formPost(authorization)), toolCookie };
  };

  return {
    issuer,
    clientId,
    deploymentId,
    host,
    registration: (fields = {}) => ({
      issuer,
      client_id: clientId,
      auth_login_url: `${issuer}/auth`,
      auth_token_url: `${issuer}/token`,
      jwks_url: `${issuer}/jwks`,
      deployment_ids: [deploymentId],
      ...fields,
    }),
    addUser: (user) => users.set(user.sub, user),
    claimsOf,
    launchForm,
    launch: async (sub, message = {}) => {
      const form = await launchForm(sub, message);
      const headers: Record<string, string> = form.toolCookie ? { cookie: form.toolCookie } : {};
      return platformFetch(form.action, { method: 'POST', headers, body: new URLSearchParams(form.fields), redirect: 'manual' });
    },
    loginInitiation: (sub, message = {}) => ({ url: `${toolUrl}/lti/login`, fields: initiation(sub, messageHint(message)) }),
    sessionCookies: async (sub) => {
      const browser = new Browser();
      const authorization = new URL(`${issuer}/auth`);
      for (const [name, value] of Object.entries({
        client_id: clientId,
        redirect_uri: launchUrl,
        response_type: 'id_token',
        response_mode: 'form_post',
        scope: 'openid',
      }))
        authorization.searchParams.set(name, value);
      await browser.signIn(authorization, sub);
      return browser.cookieList();
    },
    login: async (sub, message = {}) => {
      const { authorization } = await toolLogin(sub, messageHint(message));
      return { state: authorization.searchParams.get('state') ?? '', nonce: authorization.searchParams.get('nonce') ?? '' };
    },
    sign: async (payload, signing = {}) => {
      const key = signing.key === 'stranger' ? stranger : (keys.find((candidate) => candidate.kid === signing.kid) ?? keys[0]!);
      return new SignJWT(payload)
        .setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid: signing.kid ?? key.kid })
        .sign(await importJWK(key.privateJwk, 'RS256'));
    },
    rotateKeys: async () => {
      keys.unshift(await newKey('lms'));
      build();
      return keys[0]!.kid;
    },
    keysUnreachable: (value) => {
      unreachable = value;
    },
    get keyFetches() {
      return keyFetches;
    },
    get tokenRequests() {
      return tokenRequests;
    },
    get provider() {
      return provider!;
    },
    roster,
    grades,
    deepLinks: { links: deepLinking.links, outcomes: deepLinking.outcomes },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The interaction of a sign-in: the account the request's login_hint names logs in and grants `openid`, with no page. */
async function signIn(provider: Provider, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const details = await provider.interactionDetails(req, res);
  if (details.prompt.name === 'login') {
    const accountId = String(details.params.login_hint ?? '');
    await provider.interactionFinished(req, res, { login: { accountId } }, { mergeWithLastSubmission: false });
    return;
  }
  const accountId = details.session?.accountId ?? '';
  const grant = new provider.Grant({ accountId, clientId: details.params.client_id as string });
  grant.addOIDCScope('openid profile email');
  const missingClaims = details.prompt.details.missingOIDCClaims as string[] | undefined;
  if (missingClaims) grant.addOIDCClaims(missingClaims);
  await provider.interactionFinished(req, res, { consent: { grantId: await grant.save() } }, { mergeWithLastSubmission: true });
}

/** The LMS's browser at the platform: its cookies kept, redirects followed by hand. */
class Browser {
  private readonly cookies = new Map<string, string>();

  async request(url: string | URL): Promise<Response> {
    const headers: Record<string, string> = {};
    if (this.cookies.size > 0) headers.cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const response = await platformFetch(url, { headers, redirect: 'manual' });
    for (const cookie of response.headers.getSetCookie()) {
      const [pair] = cookie.split(';');
      const at = pair!.indexOf('=');
      const [name, value] = [pair!.slice(0, at), pair!.slice(at + 1)];
      if (value === '' || /expires=Thu, 01 Jan 1970/i.test(cookie)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return response;
  }

  /** The cookies the platform set and this browser holds. */
  cookieList(): { name: string; value: string }[] {
    return [...this.cookies].map(([name, value]) => ({ name, value }));
  }

  /** Follows the platform's redirects from `url` to the page it ends on. */
  async follow(url: URL): Promise<Response> {
    let response = await this.request(url);
    for (let step = 0; step < 20; step++) {
      const location = response.headers.get('location');
      if (response.status < 300 || response.status >= 400 || !location) return response;
      await response.body?.cancel();
      response = await this.request(new URL(location, url));
    }
    throw new Error('the platform redirected too often');
  }

  /** Signs the user in at the platform: the same request as the tool's, but prompting for a login (answered by `signIn`). */
  async signIn(authorization: URL, sub: string): Promise<void> {
    const first = new URL(authorization);
    first.searchParams.set('prompt', 'login');
    first.searchParams.set('login_hint', sub);
    first.searchParams.set('state', 'sign-in');
    first.searchParams.set('nonce', randomUUID());
    const page = await this.follow(first);
    await page.body?.cancel();
  }

  /** The platform's answer to the tool's authentication request: its auto-submitted form, as action and fields. */
  async formPost(authorization: URL): Promise<{ action: string; fields: Record<string, string> }> {
    const page = await this.follow(authorization);
    const html = await page.text();
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
    if (!action) throw new Error(`the platform answered no form (HTTP ${page.status}): ${html.slice(0, 500)}`);
    const fields: Record<string, string> = {};
    for (const [, name, value] of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)) fields[name!] = decode(value!);
    return { action: decode(action), fields };
  }
}

const decode = (text: string): string =>
  text.replace(/&(#\d+|#x[0-9a-f]+|amp|quot|lt|gt|apos);/gi, (_, entity: string) => {
    if (entity.startsWith('#x')) return String.fromCharCode(parseInt(entity.slice(2), 16));
    if (entity.startsWith('#')) return String.fromCharCode(Number(entity.slice(1)));
    return { amp: '&', quot: '"', lt: '<', gt: '>', apos: "'" }[entity.toLowerCase()] ?? '';
  });
