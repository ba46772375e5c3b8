import { createServer as createTcpServer, type Server as TcpServer } from 'node:net';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { decodeJwt, exportJWK, generateKeyPair, SignJWT, type JWTPayload } from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { KEYS_COOLDOWN_MS } from '#shared/auth/oidc.ts';
import { auditEntries } from '#shared/data/audit.ts';
import { dynamo } from '#shared/data/client.ts';
import { tableName, tables } from '#shared/data/tables.ts';
import { getUser } from '#shared/data/users.ts';
import { startTestApi, type TestApi } from '../support/http.ts';
import { CLIENT_ID, OTHER_CLIENT_ID, startOidcProvider, type OidcTestProvider } from '../support/oidc-provider.ts';
import { createUser, type TestUser } from '../support/users.ts';

const UNAUTHENTICATED = { status: 'fail', message: 'Unauthenticated access. Please log in.' };
const refused = (reason: string) => ({ status: 'fail', message: `Could not sign in with that ID token: ${reason}.` });

let api: TestApi;
let provider: OidcTestProvider;
let otherProvider: OidcTestProvider;
beforeAll(async () => {
  [api, provider, otherProvider] = await Promise.all([startTestApi(), startOidcProvider(), startOidcProvider()]);
});
afterAll(() => Promise.all([api.close(), provider.close(), otherProvider.close()]));
afterEach(() => vi.unstubAllEnvs());

/** The deployment signs in through the test provider. */
function useProvider(settings: Record<string, string> = {}): void {
  vi.stubEnv('OIDC_ISSUER', provider.issuer);
  vi.stubEnv('OIDC_CLIENT_ID', CLIENT_ID);
  for (const [name, value] of Object.entries(settings)) vi.stubEnv(name, value);
}

/** A user of the API and the same person's account at the provider. */
async function rosteredUser(level: TestUser['accessLevel'] = 'user'): Promise<TestUser> {
  const user = await createUser(level);
  provider.addAccount({ sub: user.userId, preferred_username: user.userId, email: user.email, email_verified: true });
  return user;
}

async function passwordToken(user: TestUser): Promise<string> {
  const answer = await api.postJson('/token', { user_id: user.userId, password: user.password });
  expect(answer.json.status, answer.text).toBe('success');
  return answer.json.data.token as string;
}

const exchange = (idToken: string, extra: Record<string, string> = {}) => api.postJson('/token', { id_token: idToken, ...extra });

async function signIn(idToken: string, extra: Record<string, string> = {}): Promise<string> {
  const answer = await exchange(idToken, extra);
  expect(answer.json.status, answer.text).toBe('success');
  return answer.json.data.token as string;
}

/** What a sign-in could have written for a user id: their account, their session, their audit trail. */
async function written(userId: string) {
  const session = await dynamo().send(new GetCommand({ TableName: tableName(tables.sessions), Key: { userId }, ConsistentRead: true }));
  return {
    user: await getUser(userId),
    session: session.Item,
    audit: (await auditEntries({ userId }, 10, undefined)).entries,
  };
}

/** Refused with `expected`, and nothing of the user changed. */
async function expectRefusedWritingNothing(userId: string, attempt: () => Promise<{ json: unknown }>, expected: unknown) {
  const before = await written(userId);
  expect((await attempt()).json).toEqual(expected);
  expect(await written(userId)).toEqual(before);
}

/** A genuine ID token's claims, for tokens signed with the provider's key that no flow would give. */
function claimsFor(userId: string, overrides: JWTPayload = {}): JWTPayload {
  const now = Math.floor(Date.now() / 1000);
  return { iss: provider.issuer, aud: CLIENT_ID, sub: userId, preferred_username: userId, iat: now, exp: now + 600, ...overrides };
}

describe('signing in with an ID token of the identity provider', () => {
  it('takes an ID token from the authorization code flow with PKCE: the same token as a password login, the previous one ended', async () => {
    useProvider();
    const user = await rosteredUser();
    const byPassword = (await api.postJson('/token', { user_id: user.userId, password: user.password })).json.data.token as string;
    const token = await signIn(await provider.codeFlow(user.userId));
    expect(decodeJwt(token).sub).toBe(user.userId);
    expect((await api.get('/me', { Authorization: token })).json.data.user_id).toBe(user.userId);
    expect((await api.get('/me', { Authorization: byPassword })).json).toEqual(UNAUTHENTICATED);
    const info = await api.get('/token', { Authorization: token });
    expect(info.json.data).toMatchObject({ user_id: user.userId, method: 'oidc' });
    const again = (await api.postJson('/token', { user_id: user.userId, password: user.password })).json.data.token as string;
    expect((await api.get('/token', { Authorization: again })).json.data.method).toBe('password');
    expect((await api.get('/me', { Authorization: token })).json).toEqual(UNAUTHENTICATED);
  });

  it('takes an ID token from the device authorization flow, sent url-encoded', async () => {
    useProvider();
    const user = await rosteredUser();
    const answer = await api.postForm('/token', { id_token: await provider.deviceFlow(user.userId) });
    expect(answer.json.status, answer.text).toBe('success');
    expect((await api.get('/me', { Authorization: answer.json.data.token })).json.data.user_id).toBe(user.userId);
  });

  it('checks the nonce the request sends', async () => {
    useProvider();
    const user = await rosteredUser();
    const idToken = await provider.codeFlow(user.userId, { nonce: 'nonce-one' });
    await expectRefusedWritingNothing(
      user.userId,
      () => exchange(idToken, { nonce: 'nonce-two' }),
      refused('its nonce is not the one sent'),
    );
    await signIn(idToken, { nonce: 'nonce-one' });
  });

  it('refuses an unknown user, writing nothing, unless the deployment creates users', async () => {
    useProvider();
    const userId = `new-${randomUUID().slice(0, 8)}`;
    provider.addAccount({
      sub: userId,
      preferred_username: userId,
      email: `${userId}@example.edu`,
      email_verified: true,
      name: 'Ada Byron Lovelace',
    });
    const idToken = await provider.codeFlow(userId);
    await expectRefusedWritingNothing(userId, () => exchange(idToken), {
      status: 'fail',
      message: `There is no account for ${userId} here. Ask an instructor or an administrator to add you, then sign in again.`,
    });

    vi.stubEnv('OIDC_CREATE_USERS', 'true');
    const token = await signIn(idToken);
    expect(await getUser(userId)).toEqual({
      userId,
      givenName: 'Ada Byron',
      familyName: 'Lovelace',
      email: `${userId}@example.edu`,
      accessLevel: 'user',
      identity: { issuer: provider.issuer, subject: userId },
    });
    expect((await auditEntries({ userId }, 10, undefined)).entries).toMatchObject([
      { actor: userId, action: 'user.created', target: userId, after: { level: 'user', email: `${userId}@example.edu` } },
    ]);
    expect((await api.get('/token', { Authorization: token })).json.data).toMatchObject({ user_id: userId, method: 'oidc' });
  });

  it('refuses a disabled user, writing nothing, even where the deployment creates users; enabled again, they sign in', async () => {
    useProvider({ OIDC_CREATE_USERS: 'true' });
    const [user, superuser] = await Promise.all([rosteredUser(), createUser('superuser')]);
    const su = { Authorization: await passwordToken(superuser), 'Content-Type': 'application/json' };
    const setDisabled = async (disabled: boolean) => {
      const answer = await api.call('PATCH', `/users/${user.userId}`, { headers: su, body: JSON.stringify({ disabled }) });
      expect(answer.json.data, answer.text).toMatchObject({ disabled });
    };
    const token = await signIn(await provider.codeFlow(user.userId));
    await setDisabled(true);
    expect((await api.get('/me', { Authorization: token })).json).toEqual(UNAUTHENTICATED);
    const idToken = await provider.codeFlow(user.userId);
    await expectRefusedWritingNothing(user.userId, () => exchange(idToken), {
      status: 'fail',
      message: 'This account is disabled. Ask an administrator to enable it again.',
    });
    await setDisabled(false);
    const again = await signIn(idToken);
    expect((await api.get('/me', { Authorization: again })).json.data.user_id).toBe(user.userId);
  });

  it('refuses a token for another client, from another issuer, expired, not yet valid, or for several audiences without this client as azp', async () => {
    useProvider();
    const user = await rosteredUser();
    const otherClient = await provider.codeFlow(user.userId, { clientId: OTHER_CLIENT_ID });
    await expectRefusedWritingNothing(user.userId, () => exchange(otherClient), refused('it was issued for another client'));

    otherProvider.addAccount({ sub: user.userId, preferred_username: user.userId });
    const otherIssuer = await otherProvider.codeFlow(user.userId);
    await expectRefusedWritingNothing(user.userId, () => exchange(otherIssuer), refused('it was issued by another identity provider'));

    const now = Math.floor(Date.now() / 1000);
    const expired = await provider.signAsIssuer(claimsFor(user.userId, { iat: now - 7200, exp: now - 3600 }));
    await expectRefusedWritingNothing(user.userId, () => exchange(expired), refused('it has expired'));
    const future = await provider.signAsIssuer(claimsFor(user.userId, { iat: now + 3600, exp: now + 7200 }));
    await expectRefusedWritingNothing(user.userId, () => exchange(future), refused('it is not valid yet (issued in the future)'));
    const severalAudiences = await provider.signAsIssuer(
      claimsFor(user.userId, { aud: [CLIENT_ID, OTHER_CLIENT_ID], azp: OTHER_CLIENT_ID }),
    );
    await expectRefusedWritingNothing(user.userId, () => exchange(severalAudiences), refused('it was issued for another client'));
    // The same token for several audiences that names this client as azp is fine.
    await signIn(await provider.signAsIssuer(claimsFor(user.userId, { aud: [CLIENT_ID, OTHER_CLIENT_ID], azp: CLIENT_ID })));
  });

  it('refuses a forged token: re-signed with another key, unsigned, signed with a shared secret, or not a JWT', async () => {
    useProvider();
    const user = await rosteredUser();
    const genuine = await provider.codeFlow(user.userId);
    const [header] = genuine.split('.');
    const { kid } = JSON.parse(Buffer.from(header!, 'base64url').toString()) as { kid: string };
    const { privateKey } = await generateKeyPair('RS256');
    const resigned = await new SignJWT(decodeJwt(genuine)).setProtectedHeader({ alg: 'RS256', kid }).sign(privateKey);
    await expectRefusedWritingNothing(user.userId, () => exchange(resigned), refused("its signature is not the identity provider's"));

    const payload = Buffer.from(JSON.stringify(decodeJwt(genuine))).toString('base64url');
    const unsigned = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${payload}.`;
    const rejected = refused('it is not signed with an algorithm this service accepts');
    await expectRefusedWritingNothing(user.userId, () => exchange(unsigned), rejected);
    const hmac = await new SignJWT(decodeJwt(genuine)).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(CLIENT_ID));
    await expectRefusedWritingNothing(user.userId, () => exchange(hmac), rejected);
    // An HMAC key made of the provider's public key (the classic algorithm confusion) is refused as well.
    const publicJwk = await exportJWK((await generateKeyPair('RS256', { extractable: true })).publicKey);
    const confused = await new SignJWT(decodeJwt(genuine))
      .setProtectedHeader({ alg: 'HS256', kid })
      .sign(new TextEncoder().encode(JSON.stringify(publicJwk)));
    await expectRefusedWritingNothing(user.userId, () => exchange(confused), rejected);
    await expectRefusedWritingNothing(user.userId, () => exchange('not.a.jwt'), refused('it is not a signed JWT'));
  });

  it('fetches the keys again for a key id it has not seen: a rotation at the provider', async () => {
    useProvider();
    const user = await rosteredUser();
    await signIn(await provider.codeFlow(user.userId));
    const ofPreviousKey = await provider.codeFlow(user.userId);
    const kid = await provider.rotateKeys();
    // The key set read above is not read again within the cool-down; after it, an unknown key id fetches it.
    await sleep(KEYS_COOLDOWN_MS + 500);
    const idToken = await provider.codeFlow(user.userId);
    expect(JSON.parse(Buffer.from(idToken.split('.')[0]!, 'base64url').toString()).kid).toBe(kid);
    await signIn(idToken);
    // A token of the previous key still verifies while the provider publishes it.
    await signIn(ofPreviousKey);
  });

  it('names the user by another claim with a domain suffix stripped, refusing a claim without it', async () => {
    useProvider({ OIDC_USER_ID_CLAIM: 'email', OIDC_USER_ID_SUFFIX: '@Example.edu' });
    const user = await createUser();
    provider.addAccount({ sub: `sub-${user.userId}`, email: `${user.userId}@example.edu`, email_verified: true });
    const token = await signIn(await provider.codeFlow(`sub-${user.userId}`));
    expect(decodeJwt(token).sub).toBe(user.userId);

    provider.addAccount({ sub: `elsewhere-${user.userId}`, email: `${user.userId}@example.com`, email_verified: true });
    const elsewhere = await provider.codeFlow(`elsewhere-${user.userId}`);
    await expectRefusedWritingNothing(user.userId, () => exchange(elsewhere), refused('its email does not end with @Example.edu'));
    provider.addAccount({ sub: `unverified-${user.userId}`, email: `${user.userId}@example.edu`, email_verified: false });
    const unverified = await provider.codeFlow(`unverified-${user.userId}`);
    await expectRefusedWritingNothing(
      user.userId,
      () => exchange(unverified),
      refused('its email is not verified by the identity provider'),
    );
  });

  it('takes an e-mail address as the user id only when the provider says it verified it, with the boolean true', async () => {
    useProvider({ OIDC_USER_ID_CLAIM: 'email', OIDC_USER_ID_SUFFIX: '@example.edu' });
    const superuser = await createUser('superuser');
    const email = `${superuser.userId}@example.edu`;
    for (const [name, verified] of [
      ['absent', {}],
      ['false as a string', { email_verified: 'false' }],
      ['true as a string', { email_verified: 'true' }],
    ] as const) {
      const sub = `${name.replaceAll(' ', '-')}-${superuser.userId}`;
      provider.addAccount({ sub, email, ...verified });
      const idToken = await provider.codeFlow(sub);
      await expectRefusedWritingNothing(
        superuser.userId,
        () => exchange(idToken),
        refused('its email is not verified by the identity provider'),
      );
    }
    // A deployment whose provider verifies every address says so.
    vi.stubEnv('OIDC_EMAILS_VERIFIED', 'true');
    const user = await createUser();
    provider.addAccount({ sub: `trusted-${user.userId}`, email: `${user.userId}@example.edu` });
    const token = await signIn(await provider.codeFlow(`trusted-${user.userId}`));
    expect(decodeJwt(token).sub).toBe(user.userId);
  });

  it('compares the user id suffix in ASCII only: a Kelvin sign is no k', async () => {
    useProvider({ OIDC_USER_ID_CLAIM: 'email', OIDC_USER_ID_SUFFIX: '@kth.se' });
    const superuser = await createUser('superuser');
    provider.addAccount({ sub: `kelvin-${superuser.userId}`, email: `${superuser.userId}@\u212Ath.se`, email_verified: true });
    const kelvin = await provider.codeFlow(`kelvin-${superuser.userId}`);
    await expectRefusedWritingNothing(superuser.userId, () => exchange(kelvin), refused('its email does not end with @kth.se'));
    provider.addAccount({ sub: `upper-${superuser.userId}`, email: `${superuser.userId}@KTH.se`, email_verified: true });
    expect(decodeJwt(await signIn(await provider.codeFlow(`upper-${superuser.userId}`))).sub).toBe(superuser.userId);
  });

  it('refuses to create an account whose name a spreadsheet would run as a formula, writing nothing', async () => {
    useProvider({ OIDC_CREATE_USERS: 'true' });
    const userId = `new-${randomUUID().slice(0, 8)}`;
    provider.addAccount({
      sub: userId,
      preferred_username: userId,
      email: `${userId}@example.edu`,
      email_verified: true,
      given_name: '=HYPERLINK("http://evil.example","x")',
      family_name: 'Doe',
    });
    await expectRefusedWritingNothing(
      userId,
      async () => exchange(await provider.codeFlow(userId)),
      refused(`the account's first_name from its claims starts with "=", which spreadsheets run as a formula`),
    );
    expect(await getUser(userId)).toBeUndefined();
  });

  it('links an account to the identity of its first sign-in: a user name renamed or reused at the provider does not inherit it; a superuser relinks it, audited', async () => {
    useProvider();
    const [user, superuser] = await Promise.all([createUser(), createUser('superuser')]);
    const su = { Authorization: await passwordToken(superuser), 'Content-Type': 'application/json' };
    const relink = (subject: string) =>
      api.call('PUT', `/users/${user.userId}/identity`, { headers: su, body: JSON.stringify({ subject }) });
    const [owner, newcomer] = [`owner-${user.userId}`, `newcomer-${user.userId}`];
    provider.addAccount({ sub: owner, preferred_username: user.userId, email: user.email, email_verified: true });
    await signIn(await provider.codeFlow(owner));
    expect((await getUser(user.userId))?.identity).toEqual({ issuer: provider.issuer, subject: owner });

    // The provider gives the same user name to someone else.
    provider.addAccount({ sub: newcomer, preferred_username: user.userId, email: user.email, email_verified: true });
    const linkedElsewhere = {
      status: 'fail',
      message: `The account ${user.userId} is linked to another identity at the identity provider, so this one cannot sign in to it. If the account is yours (your user name there was changed, or given to someone before you), ask an administrator to link it to your identity ${newcomer}.`,
    };
    await expectRefusedWritingNothing(user.userId, async () => exchange(await provider.codeFlow(newcomer)), linkedElsewhere);

    expect((await relink('  ')).json).toEqual({
      status: 'fail',
      message: "Give subject: the identity provider's sub for the account's owner.",
    });
    expect((await relink(newcomer)).json).toEqual({
      status: 'success',
      data: { user_id: user.userId, issuer: provider.issuer, subject: newcomer },
    });
    await signIn(await provider.codeFlow(newcomer));
    await expectRefusedWritingNothing(user.userId, async () => exchange(await provider.codeFlow(owner)), {
      ...linkedElsewhere,
      message: linkedElsewhere.message.replace(newcomer, owner),
    });
    // Relinking to the identity it has writes nothing.
    expect((await relink(newcomer)).json.status).toBe('success');
    const trail = await api.get(`/users/${user.userId}/audit`, su);
    expect(
      (trail.json.data as { actor: string; action: string; before: unknown; after: unknown }[]).map(({ actor, action, before, after }) => ({
        actor,
        action,
        before,
        after,
      })),
    ).toEqual([
      { actor: superuser.userId, action: 'user.identity-linked', before: { identity: owner }, after: { identity: newcomer } },
      { actor: user.userId, action: 'user.identity-linked', before: null, after: { identity: owner } },
    ]);
  });

  it('answers an issuer it cannot reach with a retryable error within seconds, writing nothing', async () => {
    const user = await rosteredUser();
    const idToken = await provider.codeFlow(user.userId);
    // Nothing listens there …
    const closed = createTcpServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as { port: number }).port;
    await new Promise((resolve) => closed.close(resolve));
    // … and here something listens but never answers.
    const silent: TcpServer = createTcpServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      for (const issuer of [`http://127.0.0.1:${port}`, `http://127.0.0.1:${(silent.address() as { port: number }).port}`]) {
        useProvider({ OIDC_ISSUER: issuer });
        const token = await provider.signAsIssuer(claimsFor(user.userId, { iss: issuer }));
        const started = Date.now();
        const before = await written(user.userId);
        const answer = await exchange(token);
        expect(answer.json).toMatchObject({ status: 'error', code: 'RETRYABLE' });
        // Generous: the issuer's time-out is 3 s; the point is that the answer does not wait for the function's limit.
        expect(Date.now() - started).toBeLessThan(20_000);
        expect(await written(user.userId)).toEqual(before);
      }
    } finally {
      silent.close();
    }
    // The same ID token against the reachable issuer still signs in.
    useProvider();
    await signIn(idToken);
  });

  it('refuses an ID token together with a password, and any ID token where none is configured', async () => {
    const user = await rosteredUser();
    const idToken = await provider.codeFlow(user.userId);
    await expectRefusedWritingNothing(user.userId, () => exchange(idToken), {
      status: 'fail',
      message: 'This deployment does not sign in through an identity provider: log in with user_id and password.',
    });
    useProvider();
    await expectRefusedWritingNothing(user.userId, () => exchange(idToken, { user_id: user.userId, password: user.password }), {
      status: 'fail',
      message: 'Send either id_token, or user_id and password, not both.',
    });
  });
});

describe('PASSWORD_LOGIN', () => {
  const howTo = (who: string) =>
    `${who} Sign in through your institution (${provider.issuer}) and send its ID token as id_token; GET /api/auth says how.`;

  it('off: every password login is refused, saying how to sign in instead; ID tokens still sign in', async () => {
    useProvider({ PASSWORD_LOGIN: 'off' });
    const user = await rosteredUser('superuser');
    const refusal = { status: 'fail', message: howTo('Password login is turned off here.') };
    await expectRefusedWritingNothing(
      user.userId,
      () => api.postJson('/token', { user_id: user.userId, password: user.password }),
      refusal,
    );
    // As the reference clients send it (a multipart form), and with blank fields too.
    const form = new FormData();
    form.append('user_id', user.userId);
    form.append('password', user.password);
    expect((await api.call('POST', '/token', { body: form })).json).toEqual(refusal);
    expect((await api.postJson('/token', {})).json).toEqual(refusal);
    await signIn(await provider.codeFlow(user.userId));
    expect((await api.get('/auth')).json.data).toMatchObject({ methods: ['oidc'], password_login: 'off' });
  });

  it('off: no password is taken anywhere: not to invalidate tokens, not to change it; a logout with the token still works', async () => {
    useProvider({ PASSWORD_LOGIN: 'off' });
    const user = await rosteredUser();
    const token = await signIn(await provider.codeFlow(user.userId));
    const refusal = { status: 'fail', message: howTo('Password login is turned off here.') };
    await expectRefusedWritingNothing(
      user.userId,
      () => api.postJson('/token/invalidate', { user_id: user.userId, password: user.password }),
      refusal,
    );
    await expectRefusedWritingNothing(
      user.userId,
      () =>
        api.postJson('/me/password', { current_password: user.password, new_password: 'a-new-Passphrase-9f2k' }, { Authorization: token }),
      refusal,
    );
    expect((await api.get('/me', { Authorization: token })).json.status).toBe('success');
    expect((await api.postJson('/token/invalidate', {}, { Authorization: token })).json.status).toBe('success');
    expect((await api.get('/me', { Authorization: token })).json).toEqual(UNAUTHENTICATED);
  });

  it('superusers: only superusers log in with a password (break-glass)', async () => {
    useProvider({ PASSWORD_LOGIN: 'superusers' });
    const student = await rosteredUser();
    const superuser = await rosteredUser('superuser');
    await expectRefusedWritingNothing(
      student.userId,
      () => api.postJson('/token', { user_id: student.userId, password: student.password }),
      {
        status: 'fail',
        message: howTo('Only superusers log in with a password here.'),
      },
    );
    // A wrong password is the usual answer, whoever it is for.
    expect((await api.postJson('/token', { user_id: student.userId, password: 'wrong' })).json.message).toBe(
      'Could not login using that user id or password.',
    );
    const login = await api.postJson('/token', { user_id: superuser.userId, password: superuser.password });
    expect(login.json.status, login.text).toBe('success');
    const studentToken = await signIn(await provider.codeFlow(student.userId));
    // Nor do others invalidate tokens or change their password with one.
    await expectRefusedWritingNothing(
      student.userId,
      () => api.postJson('/token/invalidate', { user_id: student.userId, password: student.password }),
      { status: 'fail', message: howTo('Only superusers log in with a password here.') },
    );
    await expectRefusedWritingNothing(
      student.userId,
      () =>
        api.postJson(
          '/me/password',
          { current_password: student.password, new_password: 'a-new-Passphrase-9f2k' },
          { Authorization: studentToken },
        ),
      { status: 'fail', message: howTo('Only superusers log in with a password here.') },
    );
    expect((await api.get('/me', { Authorization: studentToken })).json.status).toBe('success');
  });

  it('superusers: superusers do not sign in through the provider, unless the deployment says they may', async () => {
    useProvider({ PASSWORD_LOGIN: 'superusers' });
    const superuser = await rosteredUser('superuser');
    const idToken = await provider.codeFlow(superuser.userId);
    await expectRefusedWritingNothing(superuser.userId, () => exchange(idToken), {
      status: 'fail',
      message: 'Superusers log in with their password here, not through the identity provider.',
    });
    expect((await api.postJson('/token', { user_id: superuser.userId, password: superuser.password })).json.status).toBe('success');
    vi.stubEnv('OIDC_SUPERUSERS', 'true');
    await signIn(idToken);
  });
});

describe('GET /api/auth', () => {
  it('says which ways in the deployment offers, without a token', async () => {
    expect((await api.get('/auth')).json).toEqual({ status: 'success', data: { methods: ['password'], password_login: 'on', oidc: null } });
    useProvider({ OIDC_USER_ID_CLAIM: 'email' });
    expect((await api.get('/auth')).json).toEqual({
      status: 'success',
      data: {
        methods: ['password', 'oidc'],
        password_login: 'on',
        oidc: {
          issuer: provider.issuer,
          discovery_url: `${provider.issuer}/.well-known/openid-configuration`,
          client_id: CLIENT_ID,
          scopes: ['openid', 'profile', 'email'],
          user_id_claim: 'email',
        },
      },
    });
  });
});
