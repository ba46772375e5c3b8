/**
 * A real, certified OpenID Connect provider (the `oidc-provider` package) on loopback, with two
 * public clients, accounts the tests add, and the two flows a client of this API runs against it:
 * the authorization code flow with PKCE and the device authorization flow, each driven over HTTP
 * as a browser would (the login and consent prompts answered at this module's own interaction
 * endpoints). Its signing keys can be rotated, and the tests may sign with its current key to make
 * tokens no flow would give (expired, for several audiences).
 *
 * `npm run oidc-demo` starts it alone, for `npm start` to sign in against (see
 * docs/sign-in.md).
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, importJWK, SignJWT, type JWK, type JWTPayload } from 'jose';
import { Provider } from 'oidc-provider';

/** This API's client at the provider, and another application's. */
export const CLIENT_ID = 'course-submission-api';
export const OTHER_CLIENT_ID = 'another-application';
/** Where the code flow's browser is sent back to (a native client's loopback address: never fetched here). */
export const REDIRECT_URI = 'http://127.0.0.1/callback';
const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

/** Requests to the provider, not to the API (no API contract to check them against). */
// eslint-disable-next-line no-restricted-globals -- the provider is not the API
const providerFetch: typeof fetch = (...args) => fetch(...args);

export interface TestAccount {
  readonly sub: string;
  readonly preferred_username?: string;
  readonly email?: string;
  /** A boolean as the standard says; a string as some providers send it. */
  readonly email_verified?: boolean | string;
  readonly given_name?: string;
  readonly family_name?: string;
  readonly name?: string;
}

export interface OidcTestProvider {
  readonly issuer: string;
  /** An account the provider signs in (its `sub` is the login name). */
  addAccount(account: TestAccount): void;
  /** An ID token through the authorization code flow with PKCE (login and consent prompts answered). */
  codeFlow(sub: string, options?: { clientId?: string; nonce?: string }): Promise<string>;
  /** An ID token through the device authorization flow (the user enters the code, logs in, consents). */
  deviceFlow(sub: string, options?: { clientId?: string }): Promise<string>;
  /** A new signing key; the previous one stays published beside it. Answers the new key id. */
  rotateKeys(): Promise<string>;
  /** A token signed with the provider's current key, claims as given (for cases no flow produces). */
  signAsIssuer(payload: JWTPayload, header?: { kid?: string }): Promise<string>;
  close(): Promise<void>;
}

/** A provider's signing key: its id and its private JWK, published without its private parts. */
export interface SigningKey {
  readonly kid: string;
  readonly privateJwk: JWK;
}

/** A new RS256 signing key, its id starting with `prefix`. */
export async function newKey(prefix = 'key'): Promise<SigningKey> {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const kid = `${prefix}-${randomUUID().slice(0, 8)}`;
  return { kid, privateJwk: { ...(await exportJWK(privateKey)), kid, alg: 'RS256', use: 'sig' } };
}

const client = (clientId: string) => ({
  client_id: clientId,
  application_type: 'native',
  token_endpoint_auth_method: 'none',
  redirect_uris: [REDIRECT_URI],
  grant_types: ['authorization_code', DEVICE_GRANT],
  response_types: ['code'],
});

interface PageContext {
  body: string;
}

/** The device flow's pages: plain forms (the provider's own xsrf field inside). */
const page = (ctx: PageContext, title: string, form: string): void => {
  ctx.body = `<!DOCTYPE html><html><head><meta charset="utf-8"><title>${title}</title></head><body><h1>${title}</h1>${form}<button type="submit" form="op.deviceInputForm">Continue</button><button type="submit" form="op.deviceConfirmForm">Continue</button></body></html>`;
};

/** Starts the provider on loopback (`port` 0: any free port). */
export async function startOidcProvider(options: { port?: number; host?: string } = {}): Promise<OidcTestProvider> {
  const accounts = new Map<string, TestAccount>();
  const keys: SigningKey[] = [await newKey()];
  let provider: Provider | undefined;
  let handle: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;

  const server: Server = createServer((req, res) => {
    const { pathname } = new URL(req.url ?? '/', 'http://provider');
    const interaction = /^\/interaction\/[^/]+(\/login|\/confirm)?$/.exec(pathname);
    if (interaction && provider) {
      answerInteraction(provider, accounts, req, res, interaction[1]).catch((error: unknown) => {
        res.writeHead(500, { 'content-type': 'text/plain' }).end(String(error));
      });
      return;
    }
    handle?.(req, res);
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, host, resolve));
  const issuer = `http://${host}:${(server.address() as AddressInfo).port}`;

  const build = () => {
    provider = new Provider(issuer, {
      clients: [client(CLIENT_ID), client(OTHER_CLIENT_ID)],
      // The newest key signs; the older ones stay published, as in a real rotation.
      jwks: { keys: keys.map((key) => key.privateJwk) },
      cookies: { keys: [randomBytes(32).toString('base64url')] },
      features: {
        devInteractions: { enabled: false },
        deviceFlow: {
          enabled: true,
          userCodeInputSource: (ctx: PageContext, form: string) => page(ctx, 'Enter the code shown on your device', form),
          userCodeConfirmSource: (ctx: PageContext, form: string) => page(ctx, 'Confirm the code shown on your device', form),
          successSource: (ctx: PageContext) => page(ctx, 'Signed in: return to your device', ''),
        },
      },
      claims: {
        openid: ['sub'],
        profile: ['preferred_username', 'name', 'given_name', 'family_name'],
        email: ['email', 'email_verified'],
      },
      // The ID token carries the profile and e-mail claims (a code flow's otherwise puts them behind userinfo only).
      conformIdTokenClaims: false,
      interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
      ttl: { Interaction: 600, Session: 3600, Grant: 3600, AccessToken: 600, IdToken: 3600, DeviceCode: 600 },
      findAccount: (_ctx: unknown, sub: string) => {
        const account = accounts.get(sub);
        return account ? { accountId: sub, claims: () => ({ ...account }) } : undefined;
      },
    });
    handle = provider.callback();
  };
  build();

  const currentKey = () => keys[0]!;
  return {
    issuer,
    addAccount: (account) => accounts.set(account.sub, account),
    codeFlow: (sub, flow = {}) => codeFlow(issuer, sub, flow.clientId ?? CLIENT_ID, flow.nonce),
    deviceFlow: (sub, flow = {}) => deviceFlow(issuer, sub, flow.clientId ?? CLIENT_ID),
    rotateKeys: async () => {
      keys.unshift(await newKey());
      build();
      return currentKey().kid;
    },
    signAsIssuer: async (payload, header = {}) => {
      const key = currentKey();
      return new SignJWT(payload)
        .setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid: header.kid ?? key.kid })
        .sign(await importJWK(key.privateJwk, 'RS256'));
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The interaction endpoints: the prompt as JSON (GET), the login (POST …/login, `login=<sub>`) and the consent (POST …/confirm). */
async function answerInteraction(
  provider: Provider,
  accounts: ReadonlyMap<string, TestAccount>,
  req: IncomingMessage,
  res: ServerResponse,
  action: string | undefined,
): Promise<void> {
  const details = await provider.interactionDetails(req, res);
  if (req.method === 'GET' || !action) {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ uid: details.uid, prompt: details.prompt.name }));
    return;
  }
  const form = new URLSearchParams(await bodyOf(req));
  if (action === '/login') {
    const login = form.get('login') ?? '';
    if (details.prompt.name !== 'login' || !accounts.has(login)) {
      res.writeHead(400, { 'content-type': 'text/plain' }).end('no such account');
      return;
    }
    await provider.interactionFinished(req, res, { login: { accountId: login } }, { mergeWithLastSubmission: false });
    return;
  }
  const accountId = details.session?.accountId;
  const clientId = details.params.client_id as string;
  if (details.prompt.name !== 'consent' || !accountId) {
    res.writeHead(400, { 'content-type': 'text/plain' }).end('nothing to consent to');
    return;
  }
  const grant = (details.grantId ? await provider.Grant.find(details.grantId) : undefined) ?? new provider.Grant({ accountId, clientId });
  const missingScope = details.prompt.details.missingOIDCScope as string[] | undefined;
  const missingClaims = details.prompt.details.missingOIDCClaims as string[] | undefined;
  if (missingScope) grant.addOIDCScope(missingScope.join(' '));
  if (missingClaims) grant.addOIDCClaims(missingClaims);
  const grantId = await grant.save();
  await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
}

function bodyOf(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** A browser, as far as the flows need one: cookies kept by name, redirects followed by hand. */
class Browser {
  private readonly cookies = new Map<string, string>();
  private readonly issuer: string;
  constructor(issuer: string) {
    this.issuer = issuer;
  }

  async request(url: string, init: { method?: string; form?: Record<string, string> } = {}): Promise<Response> {
    const headers: Record<string, string> = {};
    if (this.cookies.size > 0) headers.cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const response = await providerFetch(new URL(url, this.issuer), {
      method: init.method ?? (init.form ? 'POST' : 'GET'),
      headers,
      body: init.form ? new URLSearchParams(init.form) : undefined,
      redirect: 'manual',
    });
    for (const cookie of response.headers.getSetCookie()) {
      const [pair] = cookie.split(';');
      const at = pair!.indexOf('=');
      const [name, value] = [pair!.slice(0, at), pair!.slice(at + 1)];
      if (value === '' || /expires=Thu, 01 Jan 1970/i.test(cookie)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return response;
  }

  /**
   * Follows redirects from `response`, answering the login and consent prompts on the way, until
   * the provider sends the browser to `until` (answered) or shows a page (its response answered).
   */
  async through(first: Response, sub: string, until?: string): Promise<Response | URL> {
    let response = first;
    for (let step = 0; step < 20; step++) {
      const location = response.headers.get('location');
      if (response.status < 300 || response.status >= 400 || !location) return response;
      const next = new URL(location, this.issuer);
      if (until && next.href.startsWith(until)) return next;
      if (/^\/interaction\/[^/]+$/.test(next.pathname)) {
        await response.body?.cancel();
        const prompt = (await (await this.request(next.href)).json()) as { prompt: string };
        response =
          prompt.prompt === 'login'
            ? await this.request(`${next.pathname}/login`, { form: { login: sub } })
            : await this.request(`${next.pathname}/confirm`, { form: {} });
        continue;
      }
      await response.body?.cancel();
      response = await this.request(next.href);
    }
    throw new Error('the provider redirected too often');
  }
}

async function tokenRequest(issuer: string, form: Record<string, string>): Promise<Record<string, unknown>> {
  const response = await providerFetch(new URL('/token', issuer), { method: 'POST', body: new URLSearchParams(form) });
  return (await response.json()) as Record<string, unknown>;
}

async function codeFlow(issuer: string, sub: string, clientId: string, nonce: string | undefined): Promise<string> {
  const browser = new Browser(issuer);
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const state = randomBytes(8).toString('base64url');
  const authorize = new URL('/auth', issuer);
  authorize.search = new URLSearchParams({
    client_id: clientId,
    response_type: 'code',
    scope: 'openid profile email',
    redirect_uri: REDIRECT_URI,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state,
    ...(nonce ? { nonce } : {}),
  }).toString();
  const back = await browser.through(await browser.request(authorize.href), sub, REDIRECT_URI);
  if (!(back instanceof URL)) throw new Error(`the code flow ended at HTTP ${back.status}: ${await back.text()}`);
  const code = back.searchParams.get('code');
  if (!code || back.searchParams.get('state') !== state) throw new Error(`the code flow came back without a code: ${back.href}`);
  const tokens = await tokenRequest(issuer, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: REDIRECT_URI,
    client_id: clientId,
    code_verifier: verifier,
  });
  if (typeof tokens.id_token !== 'string') throw new Error(`no ID token: ${JSON.stringify(tokens)}`);
  return tokens.id_token;
}

const xsrfOf = (html: string): string => {
  const match = /name="xsrf" value="([^"]+)"/.exec(html);
  if (!match) throw new Error(`no xsrf field in the page: ${html.slice(0, 200)}`);
  return match[1]!;
};

async function deviceFlow(issuer: string, sub: string, clientId: string): Promise<string> {
  // The device (an editor, a command line) asks for a code …
  const started = await providerFetch(new URL('/device/auth', issuer), {
    method: 'POST',
    body: new URLSearchParams({ client_id: clientId, scope: 'openid profile email' }),
  });
  const device = (await started.json()) as { device_code: string; user_code: string; verification_uri: string };
  if (!device.device_code) throw new Error(`no device code: ${JSON.stringify(device)}`);
  // … which is pending until the user has entered it in a browser …
  const pending = await tokenRequest(issuer, { grant_type: DEVICE_GRANT, device_code: device.device_code, client_id: clientId });
  if (pending.error !== 'authorization_pending') throw new Error(`the device code was not pending: ${JSON.stringify(pending)}`);
  const browser = new Browser(issuer);
  const input = await browser.request(device.verification_uri);
  const entered = await browser.request(device.verification_uri, {
    form: { xsrf: xsrfOf(await input.text()), user_code: device.user_code },
  });
  const confirmed = await browser.request(device.verification_uri, {
    form: { xsrf: xsrfOf(await entered.text()), user_code: device.user_code, confirm: 'yes' },
  });
  // … logs in and consents …
  const done = await browser.through(confirmed, sub);
  if (done instanceof URL || done.status !== 200) throw new Error('the device flow did not end on the success page');
  await done.body?.cancel();
  // … and the device's next poll gets the tokens.
  const tokens = await tokenRequest(issuer, { grant_type: DEVICE_GRANT, device_code: device.device_code, client_id: clientId });
  if (typeof tokens.id_token !== 'string') throw new Error(`no ID token: ${JSON.stringify(tokens)}`);
  return tokens.id_token;
}

/** `npm run oidc-demo`: the provider alone, with the demo's accounts, for `npm start` beside it. */
async function demo(): Promise<void> {
  const port = Number(process.env.OIDC_PORT ?? 9090);
  const provider = await startOidcProvider({ port });
  for (const sub of ['student', 'instructor', 'ta', 'admin']) {
    provider.addAccount({ sub, preferred_username: sub, email: `${sub}@example.edu`, email_verified: true, name: `Demo ${sub}` });
  }
  console.log(`OpenID provider at ${provider.issuer} (accounts: student, instructor, ta, admin). Start the API beside it with:`);
  console.log(`  OIDC_ISSUER=${provider.issuer} OIDC_CLIENT_ID=${CLIENT_ID} npm start`);
  console.log(`An ID token for student, through the device flow: npm run -s oidc-demo -- token student`);
}

/** `npm run oidc-demo -- token <sub>` against a running demo provider: an ID token through the device flow. */
async function demoToken(sub: string): Promise<void> {
  const issuer = process.env.OIDC_ISSUER ?? `http://127.0.0.1:${process.env.OIDC_PORT ?? 9090}`;
  console.log(await deviceFlow(issuer, sub, CLIENT_ID));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [command, sub] = process.argv.slice(2);
  await (command === 'token' ? demoToken(sub ?? 'student') : demo());
}
