import { SignJWT } from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { signingKey } from '#shared/auth/signing-secret.ts';
import { setPassword } from '#shared/auth/tokens.ts';
import { startTestApi, type TestApi } from '../support/http.ts';
import { createUser, type TestUser } from '../support/users.ts';

const UNAUTHENTICATED = { status: 'fail', message: 'Unauthenticated access. Please log in.' };
const WRONG_LOGIN = { status: 'fail', message: 'Could not login using that user id or password.' };
const BLANK_LOGIN = { status: 'fail', message: 'Cannot leave user id or password blank.' };

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());
afterEach(() => vi.unstubAllEnvs());

async function login(user: Pick<TestUser, 'userId' | 'password'>): Promise<string> {
  const answer = await api.postJson('/token', { user_id: user.userId, password: user.password });
  expect(answer.json.status, answer.text).toBe('success');
  return answer.json.data.token;
}

const me = (token: string, headers: Record<string, string> = {}) => api.get('/me', { Authorization: token, ...headers });

describe('POST /api/token', () => {
  it('logs in with a JSON body', async () => {
    const user = await createUser();
    const answer = await api.postJson('/token', { user_id: user.userId, password: user.password });
    expect(answer.httpStatus).toBe(200);
    expect(answer.headers.get('content-type')).toBe('application/json');
    expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(Object.keys(answer.json)).toEqual(['status', 'data']);
    expect(Object.keys(answer.json.data)).toEqual(['token']);
    expect((await me(answer.json.data.token)).json).toEqual({
      status: 'success',
      data: { user_id: user.userId, user_given_name: 'Given', user_family_name: 'Family' },
    });
  });

  it('logs in with a url-encoded body', async () => {
    const user = await createUser();
    const answer = await api.postForm('/token', { user_id: user.userId, password: user.password });
    expect(answer.json.status).toBe('success');
    expect((await me(answer.json.data.token)).json.status).toBe('success');
  });

  it('logs in with a multipart body from a real multipart encoder', async () => {
    const user = await createUser();
    const form = new FormData();
    form.append('user_id', user.userId);
    form.append('password', user.password);
    const answer = await api.call('POST', '/token', { body: form });
    expect(answer.json.status).toBe('success');
    expect((await me(answer.json.data.token)).json.status).toBe('success');
  });

  it('accepts a quoted multipart boundary', async () => {
    const user = await createUser();
    const boundary = 'quoted-boundary';
    const body = [
      `--${boundary}\r\nContent-Disposition: form-data; name="user_id"\r\n\r\n${user.userId}\r\n`,
      `--${boundary}\r\nContent-Disposition: form-data; name="password"\r\n\r\n${user.password}\r\n`,
      `--${boundary}--\r\n`,
    ].join('');
    const answer = await api.call('POST', '/token', {
      headers: { 'Content-Type': `multipart/form-data; boundary="${boundary}"` },
      body,
    });
    expect(answer.json.status, answer.text).toBe('success');
  });

  it('gives the same answer for a wrong password and an unknown user', async () => {
    const user = await createUser();
    expect((await api.postJson('/token', { user_id: user.userId, password: 'wrong' })).json).toEqual(WRONG_LOGIN);
    expect((await api.postJson('/token', { user_id: 'nobody-here', password: 'wrong' })).json).toEqual(WRONG_LOGIN);
    expect((await api.postJson('/token', { user_id: '../../etc/passwd', password: 'x' })).json).toEqual(WRONG_LOGIN);
  });

  it('refuses blank or missing credentials', async () => {
    for (const body of [{}, { user_id: 'student' }, { password: 'x' }, { user_id: '', password: 'x' }, { user_id: 'a', password: '' }]) {
      expect((await api.postJson('/token', body)).json, JSON.stringify(body)).toEqual(BLANK_LOGIN);
    }
    expect((await api.call('POST', '/token')).json).toEqual(BLANK_LOGIN);
  });

  it('refuses fields of the wrong type, naming the field', async () => {
    const cases: [unknown, string][] = [
      [{ user_id: 42, password: 'x' }, 'user_id'],
      [{ user_id: ['a', 'b'], password: 'x' }, 'user_id'],
      [{ user_id: 'a', password: { nested: true } }, 'password'],
      [{ user_id: 'a', password: true }, 'password'],
    ];
    for (const [body, field] of cases) {
      expect((await api.postJson('/token', body)).json).toEqual({
        status: 'fail',
        message: `The field ${field} must be a string.`,
      });
    }
    const duplicated = await api.call('POST', '/token', { body: new URLSearchParams('user_id=a&user_id=b&password=x') });
    expect(duplicated.json.message).toBe('The field user_id must be a string.');
  });

  it('refuses a body that is not a JSON object', async () => {
    for (const body of ['[1,2]', '"text"', '42', 'null']) {
      const answer = await api.call('POST', '/token', { headers: { 'Content-Type': 'application/json' }, body });
      expect(answer.json, body).toEqual({ status: 'fail', message: 'The request body must be a JSON object.' });
    }
  });

  it('refuses malformed bodies with a clear message', async () => {
    const json = await api.call('POST', '/token', { headers: { 'Content-Type': 'application/json' }, body: '{"user_id":' });
    expect(json.json).toEqual({ status: 'fail', message: 'The request body is not valid JSON.' });
    const multipart = await api.call('POST', '/token', {
      headers: { 'Content-Type': 'multipart/form-data; boundary=abc' },
      body: '--abc\r\nContent-Disposition: form-data; name="user_id"\r\n\r\nstudent',
    });
    expect(multipart.json).toEqual({ status: 'fail', message: 'The request body is not valid multipart/form-data.' });
    const proto = await api.call('POST', '/token', {
      headers: { 'Content-Type': 'application/json' },
      body: '{"__proto__":{"admin":true},"user_id":"a","password":"b"}',
    });
    expect(proto.json.status).toBe('fail');
  });

  it('refuses an unsupported content type with 415 when asked for status codes', async () => {
    const answer = await api.call('POST', '/token', {
      headers: { 'Content-Type': 'text/plain', Prefer: 'http-status' },
      body: 'user_id=a&password=b',
    });
    expect(answer.httpStatus).toBe(415);
    expect(answer.json.message).toMatch(/^Unsupported Content-Type/);
  });

  it('refuses a body over 1 MiB with the reference message', async () => {
    const user = await createUser();
    const body = JSON.stringify({ user_id: user.userId, password: user.password, padding: 'x'.repeat(1024 * 1024) });
    const answer = await api.call('POST', '/token', { headers: { 'Content-Type': 'application/json' }, body });
    expect(answer.json).toEqual({ status: 'fail', message: 'POST request exceeds maximum size of 1M' });
    const real = await api.call('POST', '/token', {
      headers: { 'Content-Type': 'application/json', Prefer: 'http-status' },
      body,
    });
    expect(real.httpStatus).toBe(413);
  });

  it('keeps only the newest token valid', async () => {
    const user = await createUser();
    const first = await login(user);
    const second = await login(user);
    expect((await me(first)).json).toEqual(UNAUTHENTICATED);
    expect((await me(second)).json.status).toBe('success');
  });

  it('leaves exactly one working token after 20 concurrent logins', async () => {
    const user = await createUser();
    const tokens = await Promise.all(Array.from({ length: 20 }, () => login(user)));
    expect(new Set(tokens).size).toBe(20);
    const answers = await Promise.all(tokens.map((token) => me(token)));
    expect(answers.filter((answer) => answer.json.status === 'success')).toHaveLength(1);
  });

  it('issues tokens that expire after TOKEN_TTL_SECONDS, or never with 0', async () => {
    const user = await createUser();
    vi.stubEnv('TOKEN_TTL_SECONDS', '3600');
    const info = (await api.get('/token', { Authorization: await login(user) })).json.data;
    expect(Date.parse(info.expires_at) - Date.parse(info.issued_at)).toBe(3600 * 1000);
    expect(Math.abs(Date.parse(info.issued_at) - Date.now())).toBeLessThan(60_000);

    vi.stubEnv('TOKEN_TTL_SECONDS', '0');
    const forever = await api.get('/token', { Authorization: await login(user) });
    expect(forever.json).toEqual({
      status: 'success',
      data: { user_id: user.userId, issued_at: expect.any(String), expires_at: null, method: 'password' },
    });
  });
});

describe('the token check', () => {
  let user: TestUser;
  let token: string;
  beforeAll(async () => {
    user = await createUser();
    token = await login(user);
  });

  const forge = async (claims: { sub?: string; jti?: string; iss?: string; exp?: number }, key?: Uint8Array) => {
    const jwt = new SignJWT({ jti: claims.jti })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(claims.sub ?? user.userId)
      .setIssuer(claims.iss ?? 'course-submission-api')
      .setIssuedAt();
    if (claims.exp) jwt.setExpirationTime(claims.exp);
    return jwt.sign(key ?? (await signingKey()));
  };
  const tokenId = () => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()).jti as string;

  it('accepts the bare token and a Bearer token', async () => {
    expect((await me(token)).json.status).toBe('success');
    expect((await me(`Bearer ${token}`)).json.status).toBe('success');
  });

  it('refuses a missing, garbage or unsigned token', async () => {
    expect((await api.get('/me')).json).toEqual(UNAUTHENTICATED);
    expect((await me('key')).json).toEqual(UNAUTHENTICATED);
    const [, payload] = token.split('.');
    const unsigned = `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${payload}.`;
    expect((await me(unsigned)).json).toEqual(UNAUTHENTICATED);
  });

  it('refuses a tampered payload, a wrong key, a wrong issuer and an expired token', async () => {
    const [header, , signature] = token.split('.');
    const otherUser = Buffer.from(JSON.stringify({ sub: 'admin', jti: tokenId(), iss: 'course-submission-api' })).toString('base64url');
    expect((await me(`${header}.${otherUser}.${signature}`)).json).toEqual(UNAUTHENTICATED);
    expect((await me(await forge({ jti: tokenId() }, new Uint8Array(32).fill(7)))).json).toEqual(UNAUTHENTICATED);
    expect((await me(await forge({ jti: tokenId(), iss: 'someone-else' }))).json).toEqual(UNAUTHENTICATED);
    const past = Math.floor(Date.now() / 1000) - 10;
    expect((await me(await forge({ jti: tokenId(), exp: past }))).json).toEqual(UNAUTHENTICATED);
  });

  it('honours a well-signed token only while the session names its token id', async () => {
    expect((await me(await forge({ jti: tokenId() }))).json.status).toBe('success');
    expect((await me(await forge({ jti: 'another-id' }))).json).toEqual(UNAUTHENTICATED);
  });

  it('answers 401 with a WWW-Authenticate challenge when asked for status codes', async () => {
    const answer = await me('key', { Prefer: 'http-status' });
    expect(answer.httpStatus).toBe(401);
    expect(answer.headers.get('www-authenticate')).toBe('Bearer');
    expect(answer.headers.get('preference-applied')).toBe('http-status');
    expect(answer.json).toEqual(UNAUTHENTICATED);
  });

  it('accepts Content-Type: application/json on a GET without a body', async () => {
    expect((await me(token, { 'Content-Type': 'application/json' })).json.status).toBe('success');
  });

  it('stops working when the password changes', async () => {
    const other = await createUser();
    const otherToken = await login(other);
    await setPassword(other.userId, 'a new password');
    expect((await me(otherToken)).json).toEqual(UNAUTHENTICATED);
    expect((await api.postJson('/token', { user_id: other.userId, password: other.password })).json).toEqual(WRONG_LOGIN);
  });
});

describe('GET /api/token', () => {
  it('describes the presented token without changing anything', async () => {
    const user = await createUser();
    const token = await login(user);
    const answer = await api.get('/token', { Authorization: token });
    expect(answer.json).toEqual({
      status: 'success',
      data: { user_id: user.userId, issued_at: expect.stringMatching(/Z$/), expires_at: expect.stringMatching(/Z$/), method: 'password' },
    });
    expect((await me(token)).json.status).toBe('success');
  });
});

describe('POST /api/token/invalidate', () => {
  it('invalidates the token given the user id and password', async () => {
    const user = await createUser();
    const token = await login(user);
    const answer = await api.postForm('/token/invalidate', { user_id: user.userId, password: user.password });
    expect(answer.json).toEqual({ status: 'success', data: null });
    expect((await me(token)).json).toEqual(UNAUTHENTICATED);
  });

  it('refuses wrong credentials and leaves the token working', async () => {
    const user = await createUser();
    const token = await login(user);
    expect((await api.postJson('/token/invalidate', { user_id: user.userId, password: 'nope' })).json).toEqual(WRONG_LOGIN);
    expect((await me(token)).json.status).toBe('success');
  });

  it('logs out with the token alone', async () => {
    const user = await createUser();
    const token = await login(user);
    const answer = await api.call('POST', '/token/invalidate', { headers: { Authorization: token } });
    expect(answer.json).toEqual({ status: 'success', data: null });
    expect((await me(token)).json).toEqual(UNAUTHENTICATED);
  });

  it('needs credentials or a valid token', async () => {
    expect((await api.call('POST', '/token/invalidate')).json).toEqual(BLANK_LOGIN);
    expect((await api.call('POST', '/token/invalidate', { headers: { Authorization: 'key' } })).json).toEqual(UNAUTHENTICATED);
  });
});

describe('router', () => {
  it('answers unknown paths and wrong methods in the envelope, 200 by default', async () => {
    const unknown = await api.get('/no/such/thing');
    expect(unknown.httpStatus).toBe(200);
    expect(unknown.json).toEqual({ status: 'fail', message: 'Endpoint not found.' });
    const wrongMethod = await api.call('PUT', '/token');
    expect(wrongMethod.httpStatus).toBe(200);
    expect(wrongMethod.json).toEqual({ status: 'fail', message: 'Method not allowed.' });
  });

  it('uses 404 and 405 with an Allow header when asked for status codes', async () => {
    expect((await api.get('/no/such/thing', { Prefer: 'http-status' })).httpStatus).toBe(404);
    const wrongMethod = await api.call('PATCH', '/me', { headers: { Prefer: 'http-status' } });
    expect(wrongMethod.httpStatus).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('GET, HEAD');
  });
});
