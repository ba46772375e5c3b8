import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jwtVerify, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { signToken, verifyToken } from '#shared/auth/jwt.ts';
import {
  decodeSecret,
  DEFAULT_GRACE_SECONDS,
  generateSecret,
  parseSecretFile,
  rotateSecretFile,
  signingKey,
} from '#shared/auth/signing-secret.ts';
import { newTokenClaims } from '#shared/auth/tokens.ts';
import { runAdminCommand } from '#infra/admin/commands.ts';
import { startTestApi, type TestApi } from '../support/http.ts';
import { createUser } from '../support/users.ts';

const DAY = 24 * 60 * 60 * 1000;
let folder: string;
let file: string;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'rotation-'));
  file = join(folder, 'signing-secret');
  vi.stubEnv('SIGNING_SECRET_FILE', file);
});
afterAll(async () => {
  vi.unstubAllEnvs();
  await rm(folder, { recursive: true, force: true });
});

const tokenFor = (userId: string) => signToken(newTokenClaims(userId));
const signedBy = async (token: string, secret: string) =>
  jwtVerify(token, decodeSecret(secret)).then(
    () => true,
    () => false,
  );

describe('signing-secret rotation (local file)', () => {
  it('keeps reading the one-line format', async () => {
    const secret = generateSecret();
    await writeFile(file, `${secret}\n`);
    expect(await signingKey()).toEqual(decodeSecret(secret));
    expect(parseSecretFile(`${secret}\n`)).toEqual({ current: decodeSecret(secret) });
  });

  it('accepts tokens of the previous key within the grace period, and signs new ones with the new key', async () => {
    const old = generateSecret();
    await writeFile(file, `${old}\n`);
    const before = await tokenFor('alice');
    const { rotatedAt, graceEndsAt } = await rotateSecretFile(file);
    expect(graceEndsAt.getTime() - rotatedAt.getTime()).toBe(DEFAULT_GRACE_SECONDS * 1000);

    const [current, previousLine] = (await readFile(file, 'utf8')).trim().split('\n');
    expect(previousLine).toBe(`${old} ${rotatedAt.toISOString()}`);
    expect(await verifyToken(before)).toMatchObject({ userId: 'alice' });
    expect(await verifyToken(before, new Date(graceEndsAt.getTime() - 1000))).toMatchObject({ userId: 'alice' });

    const after = await tokenFor('bob');
    expect(await signedBy(after, current!)).toBe(true);
    expect(await signedBy(after, old)).toBe(false);
    expect(await verifyToken(after)).toMatchObject({ userId: 'bob' });
  });

  it('refuses tokens of the previous key once the grace period is over', async () => {
    const old = generateSecret();
    await writeFile(file, `${generateSecret()}\n${old} ${new Date(Date.now() - 8 * DAY).toISOString()}\n`);
    const oldToken = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('carol')
      .setJti('t1')
      .setIssuer('course-submission-api')
      .setIssuedAt()
      .sign(decodeSecret(old));
    expect(await verifyToken(oldToken)).toBeUndefined();

    await writeFile(file, `${generateSecret()}\n${old} ${new Date(Date.now() - 6 * DAY).toISOString()}\n`);
    expect(await verifyToken(oldToken)).toMatchObject({ userId: 'carol' });
    vi.stubEnv('SIGNING_SECRET_GRACE_SECONDS', String(5 * 24 * 60 * 60));
    expect(await verifyToken(oldToken)).toBeUndefined();
    vi.stubEnv('SIGNING_SECRET_GRACE_SECONDS', '0');
    expect(await verifyToken(oldToken)).toBeUndefined();
    vi.stubEnv('SIGNING_SECRET_GRACE_SECONDS', '');
  });

  it('never accepts a key that is neither current nor previous, nor an expired token of the previous key', async () => {
    const old = generateSecret();
    await writeFile(file, `${generateSecret()}\n${old} ${new Date().toISOString()}\n`);
    const stranger = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('eve')
      .setJti('t2')
      .setIssuer('course-submission-api')
      .setIssuedAt()
      .sign(decodeSecret(generateSecret()));
    expect(await verifyToken(stranger)).toBeUndefined();
    const expired = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('dave')
      .setJti('t3')
      .setIssuer('course-submission-api')
      .setIssuedAt(Math.floor(Date.now() / 1000) - 100)
      .setExpirationTime(Math.floor(Date.now() / 1000) - 10)
      .sign(decodeSecret(old));
    expect(await verifyToken(expired)).toBeUndefined();
  });

  it('refuses a malformed file without quoting the secret', async () => {
    const secret = generateSecret();
    for (const text of [`${secret}\n${secret}\n`, `${secret}\n${secret} yesterday\n`, `${secret}\na\nb\n`]) {
      const error = (() => {
        try {
          parseSecretFile(text);
        } catch (caught) {
          return caught as Error;
        }
      })();
      expect(error?.message, text).toMatch(/signing secret file/);
      expect(error?.message).not.toContain(secret);
    }
  });
});

describe('rotation over HTTP with the admin command', () => {
  let api: TestApi;
  beforeAll(async () => {
    await writeFile(file, `${generateSecret()}\n`);
    api = await startTestApi();
  });
  afterAll(() => api?.close());

  it('keeps a logged-in user logged in across a rotation, until the grace period ends', async () => {
    const user = await createUser();
    const login = await api.postJson('/token', { user_id: user.userId, password: user.password });
    const token = login.json.data.token as string;
    const lines: string[] = [];
    await runAdminCommand(['rotate-signing-secret'], (line) => lines.push(line));
    expect(lines.join('\n')).toMatch(/^Signing secret rotated; tokens signed with the previous one work until \d{4}-/);

    expect((await api.get('/me', { Authorization: token })).json).toMatchObject({ status: 'success', data: { user_id: user.userId } });
    const fresh = (await api.postJson('/token', { user_id: user.userId, password: user.password })).json.data.token as string;
    const [current] = (await readFile(file, 'utf8')).trim().split('\n');
    expect(await signedBy(fresh, current!)).toBe(true);

    // The fresh login replaced the session; log in once more, rotate, and age the rotation past the grace period.
    const again = (await api.postJson('/token', { user_id: user.userId, password: user.password })).json.data.token as string;
    await runAdminCommand(['rotate-signing-secret'], () => undefined);
    expect((await api.get('/me', { Authorization: again })).json.status).toBe('success');
    const [newest, previous] = (await readFile(file, 'utf8')).trim().split('\n');
    const [previousSecret] = previous!.split(' ');
    await writeFile(file, `${newest}\n${previousSecret} ${new Date(Date.now() - 8 * DAY).toISOString()}\n`);
    expect((await api.get('/me', { Authorization: again })).json).toMatchObject({
      status: 'fail',
      message: 'Unauthenticated access. Please log in.',
    });
  });
});
