import { afterEach, describe, expect, it, vi } from 'vitest';
import { handler as issueToken } from '#functions/issue-token/handler.ts';
import { handler as me } from '#functions/me/handler.ts';
import { apiEvent, lambdaContext } from '../support/events.ts';
import { createUser } from '../support/users.ts';

afterEach(() => vi.unstubAllEnvs());

const envelopeOf = (result: { body?: string }) => JSON.parse(result.body!);

/** A token of `user`, from the token route's own function. */
async function tokenOf(user: { userId: string; password: string }): Promise<string> {
  const event = apiEvent({
    method: 'POST',
    path: '/api/token',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ user_id: user.userId, password: user.password }),
  });
  return envelopeOf(await issueToken(event, lambdaContext())).data.token as string;
}

describe('body parsing of API Gateway events', () => {
  it('decodes base64 JSON and url-encoded bodies', async () => {
    const user = await createUser();
    const json = apiEvent({
      method: 'POST',
      path: '/api/token',
      headers: { 'content-type': 'application/json; charset=utf-8' },
      body: Buffer.from(JSON.stringify({ user_id: user.userId, password: user.password })).toString('base64'),
      isBase64Encoded: true,
    });
    expect(envelopeOf(await issueToken(json, lambdaContext())).status).toBe('success');

    const form = apiEvent({
      method: 'POST',
      path: '/api/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: Buffer.from(new URLSearchParams({ user_id: user.userId, password: user.password }).toString()).toString('base64'),
      isBase64Encoded: true,
    });
    expect(envelopeOf(await issueToken(form, lambdaContext())).status).toBe('success');
  });

  it('measures the size of a base64 body after decoding', async () => {
    vi.stubEnv('MAX_BODY_BYTES', '1000');
    const event = (size: number) =>
      apiEvent({
        method: 'POST',
        path: '/api/token',
        headers: { 'content-type': 'application/json' },
        body: Buffer.from(JSON.stringify({ user_id: 'a', password: 'b', pad: 'x'.repeat(size) })).toString('base64'),
        isBase64Encoded: true,
      });
    // The limit is read when a function is built, as in Lambda; a fresh module sees the stubbed value.
    vi.resetModules();
    const { handler } = await import('#functions/issue-token/handler.ts');
    expect(envelopeOf(await handler(event(900), lambdaContext())).message).toBe('Could not login using that user id or password.');
    expect(envelopeOf(await handler(event(1000), lambdaContext())).message).toBe('POST request exceeds maximum size of 1000');
  });
});

describe('content types', () => {
  it('refuses media types that name properties of every object', async () => {
    for (const contentType of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      const result = await issueToken(
        apiEvent({ method: 'POST', path: '/api/token', headers: { 'content-type': contentType }, body: '{}' }),
        lambdaContext(),
      );
      expect(envelopeOf(result).message, contentType).toMatch(/^Unsupported Content-Type/);
    }
  });
});

describe('error mapping', () => {
  it('turns an unexpected failure into an error envelope that leaks nothing, logged once with the request id', async () => {
    const user = await createUser();
    const token = await tokenOf(user);

    const lines: string[] = [];
    const capture = (chunk: unknown) => {
      lines.push(String(chunk));
      return true;
    };
    const spies = [
      vi.spyOn(process.stdout, 'write').mockImplementation(capture),
      vi.spyOn(process.stderr, 'write').mockImplementation(capture),
    ];
    vi.stubEnv('SESSIONS_TABLE', 'no-such-table');
    try {
      const result = await me(
        apiEvent({ method: 'GET', path: '/api/me', headers: { authorization: token, prefer: 'http-status' } }),
        lambdaContext('req-42'),
      );
      expect(result.statusCode).toBe(500);
      const envelope = envelopeOf(result);
      expect(envelope).toEqual({
        status: 'error',
        message: 'The request could not be completed because of an internal error; nothing was changed. Please report request req-42.',
        code: 'INTERNAL',
      });
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
    const logged = lines
      .join('')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({ level: 'ERROR', message: 'Unhandled error', requestId: 'req-42' });
    expect(JSON.stringify(logged)).not.toContain(token);
    expect(JSON.stringify(logged)).not.toContain(token.split('.')[2]);
  });
});

describe('HEAD through the function', () => {
  it("answers with the GET's status and headers and an empty body, whatever API Gateway does with a HEAD answer's body", async () => {
    const user = await createUser();
    const token = await tokenOf(user);
    const request = (method: string) =>
      apiEvent({ method, path: '/api/me', routeKey: `${method} /api/me`, headers: { authorization: token, prefer: 'http-status' } });
    const get = await me(request('GET'), lambdaContext());
    const head = await me(request('HEAD'), lambdaContext());
    expect(envelopeOf(get).data.user_id).toBe(user.userId);
    expect(head).toEqual({ ...get, body: '' });
  });
});
