import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { dynamo } from '#shared/data/client.ts';
import { tableName, tables } from '#shared/data/tables.ts';
import { startTestApi, type TestApi } from '../support/http.ts';
import { createUser } from '../support/users.ts';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());
afterEach(() => vi.unstubAllEnvs());

const attempt = (userId: string, password: string, headers: Record<string, string> = {}) =>
  api.postJson('/token', { user_id: userId, password }, headers);

async function fail(userId: string, times: number) {
  for (let i = 0; i < times; i++) {
    expect((await attempt(userId, 'wrong')).json.message).toBe('Could not login using that user id or password.');
  }
}

const LOCKED = /^Too many failed logins for this user id\. Try again in (\d+) seconds?\.$/;

describe('brute-force protection', () => {
  it('locks a user id after 5 failures, even for the right password, saying how long', async () => {
    const user = await createUser();
    await fail(user.userId, 5);
    const locked = await attempt(user.userId, user.password);
    expect(locked.json.status).toBe('fail');
    const seconds = Number(LOCKED.exec(locked.json.message!)?.[1]);
    expect(seconds).toBeGreaterThan(890);
    expect(seconds).toBeLessThanOrEqual(900);

    const real = await attempt(user.userId, user.password, { Prefer: 'http-status' });
    expect(real.httpStatus).toBe(429);
    expect(Number(real.headers.get('retry-after'))).toBeGreaterThan(890);
  });

  it('locks an id that does not exist the same way', async () => {
    await fail('nobody-by-this-name', 5);
    expect((await attempt('nobody-by-this-name', 'x')).json.message).toMatch(LOCKED);
  });

  it('counts concurrent failures exactly', async () => {
    const user = await createUser();
    await Promise.all(Array.from({ length: 5 }, () => attempt(user.userId, 'wrong')));
    expect((await attempt(user.userId, user.password)).json.message).toMatch(LOCKED);
  });

  it('does not lock after 4 failures, and a success clears the count', async () => {
    const user = await createUser();
    await fail(user.userId, 4);
    expect((await attempt(user.userId, user.password)).json.status).toBe('success');
    await fail(user.userId, 4);
    expect((await attempt(user.userId, user.password)).json.status).toBe('success');
  });

  it('lets the id log in again when the window ends, and the counter carries a TTL', async () => {
    const user = await createUser();
    await fail(user.userId, 5);
    expect((await attempt(user.userId, user.password)).json.message).toMatch(LOCKED);

    const key = { userId: user.userId, kind: 'login-failures' };
    const TableName = tableName(tables.credentials);
    const { Item: counter } = await dynamo().send(new GetCommand({ TableName, Key: key }));
    expect(counter).toMatchObject({ failures: 5, expiresAt: counter!.windowEndsAt });
    expect(counter!.expiresAt).toBeGreaterThan(Date.now() / 1000 + 890);

    // Time passes: the window now ends in a few seconds (and TTL would remove the counter then).
    const soon = Math.floor(Date.now() / 1000) + 4;
    await dynamo().send(new PutCommand({ TableName, Item: { ...counter, windowEndsAt: soon, expiresAt: soon } }));
    expect((await attempt(user.userId, user.password)).json.message).toMatch(LOCKED);
    await new Promise((resolve) => setTimeout(resolve, soon * 1000 - Date.now() + 200));
    expect((await attempt(user.userId, user.password)).json.status).toBe('success');
  });

  it('takes its window and limit from LOGIN_WINDOW_SECONDS and LOGIN_MAX_FAILURES', async () => {
    vi.stubEnv('LOGIN_MAX_FAILURES', '2');
    vi.stubEnv('LOGIN_WINDOW_SECONDS', '120');
    const user = await createUser();
    await fail(user.userId, 2);
    const seconds = Number(LOCKED.exec((await attempt(user.userId, user.password)).json.message!)?.[1]);
    expect(seconds).toBeGreaterThan(100);
    expect(seconds).toBeLessThanOrEqual(120);
  });
});
