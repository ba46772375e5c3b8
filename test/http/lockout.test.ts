import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { readClassList } from '#shared/courses/class-list.ts';
import { importClassList } from '#shared/courses/enroll.ts';
import { dynamo } from '#shared/data/client.ts';
import { tableName, tables } from '#shared/data/tables.ts';
import { createCourse, createTerm } from '../support/courses.ts';
import { startTestApi, type TestApi } from '../support/http.ts';
import { createUser } from '../support/users.ts';

/** Every scrypt derivation the API runs (it runs in this process), by its cost parameters. */
const derivations = vi.hoisted(() => [] as string[]);
vi.mock('node:crypto', async (importOriginal) => {
  const crypto = await importOriginal<typeof import('node:crypto')>();
  const scrypt = (...args: Parameters<typeof crypto.scrypt>) => {
    const options = args[3] as { N: number; r: number; p: number };
    derivations.push(`N=${options.N} r=${options.r} p=${options.p}`);
    return (crypto.scrypt as (...all: unknown[]) => void)(...args);
  };
  return { ...crypto, default: { ...crypto, scrypt }, scrypt };
});

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
const WRONG = 'Could not login using that user id or password.';

/** Sends the attempts at once; answers how many were checked (a wrong password) and how many refused as locked. */
async function concurrently(times: number, send: () => Promise<{ json: { message?: string } }>) {
  const messages = (await Promise.all(Array.from({ length: times }, send))).map((answer) => answer.json.message ?? '');
  const checked = messages.filter((message) => message === WRONG).length;
  const locked = messages.filter((message) => LOCKED.test(message)).length;
  expect(checked + locked, messages.join('\n')).toBe(times);
  return { checked, locked };
}

/** One verification derives exactly once with the generated-password profile, whatever is stored. */
const verifications = () => derivations.filter((derivation) => derivation === 'N=4096 r=8 p=1').length;

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

  it('checks at most the limit of 40 concurrent wrong guesses, then refuses the right password until the window ends', async () => {
    const user = await createUser();
    derivations.length = 0;
    const { checked, locked } = await concurrently(40, () => attempt(user.userId, 'wrong'));
    expect(checked).toBeLessThanOrEqual(5);
    expect(locked).toBeGreaterThanOrEqual(35);
    // Only the attempts that were counted had their password hashed.
    expect(verifications()).toBe(checked);
    expect((await attempt(user.userId, user.password)).json.message).toMatch(LOCKED);
  });

  it('checks at most the limit of concurrent guesses for an id that does not exist, and creates no user', async () => {
    const userId = `nobody-${Date.now()}`;
    const { checked } = await concurrently(20, () => attempt(userId, 'wrong'));
    expect(checked).toBeLessThanOrEqual(5);
    const TableName = tableName(tables.users);
    expect((await dynamo().send(new GetCommand({ TableName, Key: { userId } }))).Item).toBeUndefined();
  });

  it("lets a client holding a token once issued to the user id log in through a lock others' failures set", async () => {
    const user = await createUser();
    const earlier = (await attempt(user.userId, user.password)).json.data.token as string;
    // A later login replaces that token: it no longer authenticates, but still marks its client.
    expect((await attempt(user.userId, user.password)).json.status).toBe('success');
    expect((await api.get('/me', { Authorization: earlier })).json.status).toBe('fail');

    const other = await createUser();
    const othersToken = (await attempt(other.userId, other.password)).json.data.token as string;
    await concurrently(40, () => attempt(user.userId, 'wrong'));
    expect((await attempt(user.userId, user.password)).json.message).toMatch(LOCKED);
    // Someone else's token, or one that is not ours, is no known client of this id.
    expect((await attempt(user.userId, user.password, { Authorization: othersToken })).json.message).toMatch(LOCKED);
    const forged = `${earlier.slice(0, earlier.lastIndexOf('.'))}.${'A'.repeat(43)}`;
    expect((await attempt(user.userId, user.password, { Authorization: forged })).json.message).toMatch(LOCKED);

    const known = await attempt(user.userId, user.password, { Authorization: `Bearer ${earlier}` });
    expect(known.json.status).toBe('success');
    expect((await api.get('/me', { Authorization: known.json.data.token })).json.status).toBe('success');
    // The attacker's lock holds for everyone else until its window ends.
    expect((await attempt(user.userId, user.password)).json.message).toMatch(LOCKED);
  });

  it("gives a known client's token no more guesses than the limit, and its failures lock no one else", async () => {
    const user = await createUser();
    const first = (await attempt(user.userId, user.password)).json.data.token as string;
    const second = (await attempt(user.userId, user.password)).json.data.token as string;
    const { checked } = await concurrently(12, () => attempt(user.userId, 'wrong', { Authorization: first }));
    expect(checked).toBeLessThanOrEqual(5);
    expect((await attempt(user.userId, user.password, { Authorization: first })).json.message).toMatch(LOCKED);
    expect((await attempt(user.userId, user.password, { Authorization: second })).json.status).toBe('success');
    expect((await attempt(user.userId, user.password)).json.status).toBe('success');
  });

  it('spends the same hashing on a wrong password for an imported user, an ordinary user and an unknown id', async () => {
    const instructor = await createUser('faculty');
    const course = await createCourse(await createTerm('2027-01-04'), instructor);
    const imported = `imported_${course.course}`;
    const csv = ['user_id,first_name,last_name,email,registration_section,group', `${imported},Ima,Port,ima@example.edu,1,4`];
    const { new_accounts: passwords } = await importClassList(course, readClassList(csv.join('\n')), { actor: 'admin' });
    const ordinary = await createUser();

    const spent = async (userId: string) => {
      derivations.length = 0;
      expect((await attempt(userId, 'wrong')).json.message).toBe(WRONG);
      return [...derivations].sort();
    };
    const importedCost = await spent(imported);
    expect(importedCost.length).toBeGreaterThan(0);
    expect(await spent(ordinary.userId)).toEqual(importedCost);
    expect(await spent(`nobody-${course.course}`)).toEqual(importedCost);
    expect(await spent('not a valid id')).toEqual(importedCost);
    // The imported user's generated password still logs in.
    expect((await attempt(imported, passwords[0]!.password ?? '')).json.status).toBe('success');
  });
});
