import { describe, expect, it } from 'vitest';
import { tokenFromAuthorization } from '#shared/auth/authorization-header.ts';
import { lockoutMessage, lockoutState, loginCounter } from '#shared/auth/lockout.ts';
import { hashGeneratedPassword, hashPassword, verifyPassword } from '#shared/auth/passwords.ts';
import { decodeSecret, generateSecret } from '#shared/auth/signing-secret.ts';
import { isValidUserId } from '#shared/users/user.ts';

const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl';

describe('Authorization header', () => {
  it('accepts the bare token and the Bearer scheme', () => {
    expect(tokenFromAuthorization(jwt)).toBe(jwt);
    expect(tokenFromAuthorization(`Bearer ${jwt}`)).toBe(jwt);
    expect(tokenFromAuthorization(`bearer   ${jwt} `)).toBe(jwt);
  });

  it('rejects anything that is not a JWT', () => {
    for (const header of [undefined, '', 'key', 'Basic dXNlcjpwYXNz', `Bearer`, `${jwt}.extra`, `Token ${jwt}`]) {
      expect(tokenFromAuthorization(header), String(header)).toBeUndefined();
    }
  });
});

describe('login lockout', () => {
  const policy = { maxFailures: 5, windowSeconds: 900 };

  it('locks after the maximum number of failures until the window ends', () => {
    expect(lockoutState(undefined, policy, 1000)).toEqual({ locked: false });
    expect(lockoutState({ count: 4, windowEndsAt: 1900 }, policy, 1000)).toEqual({ locked: false });
    expect(lockoutState({ count: 5, windowEndsAt: 1900 }, policy, 1000)).toEqual({ locked: true, retryAfterSeconds: 900 });
    expect(lockoutState({ count: 9, windowEndsAt: 1900 }, policy, 1899)).toEqual({ locked: true, retryAfterSeconds: 1 });
  });

  it('forgets failures once the window has ended, even before TTL removes them', () => {
    expect(lockoutState({ count: 50, windowEndsAt: 1900 }, policy, 1900)).toEqual({ locked: false });
  });

  it('counts a known client (a token of the same user id) on its own counter, anyone else on the id', () => {
    expect(loginCounter('ada', undefined)).toEqual({ userId: 'ada' });
    expect(loginCounter('ada', { userId: 'ada', tokenId: 't1' })).toEqual({ userId: 'ada', tokenId: 't1' });
    expect(loginCounter('ada', { userId: 'bob', tokenId: 't2' })).toEqual({ userId: 'ada' });
  });

  it('is pure: the same counter, policy and time give the same answer, and nothing changes', () => {
    const failures = Object.freeze({ count: 5, windowEndsAt: 1900 });
    const first = lockoutState(failures, policy, 1000);
    expect(lockoutState(failures, policy, 1000)).toEqual(first);
    expect(failures).toEqual({ count: 5, windowEndsAt: 1900 });
    expect(lockoutState(failures, { maxFailures: 6, windowSeconds: 900 }, 1000)).toEqual({ locked: false });
  });

  it('says how long to wait', () => {
    expect(lockoutMessage(1)).toBe('Too many failed logins for this user id. Try again in 1 second.');
    expect(lockoutMessage(600)).toBe('Too many failed logins for this user id. Try again in 600 seconds.');
  });
});

describe('passwords', () => {
  it('hashes with a random salt and verifies only the same password', async () => {
    const [first, second] = await Promise.all([hashPassword('correct horse'), hashPassword('correct horse')]);
    expect(first).toMatch(/^scrypt\$32768\$8\$3\$/);
    expect(first).not.toBe(second);
    expect(first).not.toContain('correct horse');
    expect(await verifyPassword('correct horse', first)).toBe(true);
    expect(await verifyPassword('correct horsE', first)).toBe(false);
  });

  it('never matches a malformed stored hash, or none', async () => {
    for (const stored of ['', 'plain', 'scrypt$x$8$3$c2FsdA$', 'bcrypt$1$2$3$4$5', undefined]) {
      expect(await verifyPassword('x', stored)).toBe(false);
    }
  });

  it('verifies generated-password hashes and hashes of a profile no longer issued', async () => {
    const generated = await hashGeneratedPassword('generated');
    expect(generated).toMatch(/^scrypt\$4096\$8\$1\$/);
    expect(await verifyPassword('generated', generated)).toBe(true);
    const older = await hashPassword('older', { N: 2 ** 10, r: 8, p: 1 });
    expect(await verifyPassword('older', older)).toBe(true);
    expect(await verifyPassword('olden', older)).toBe(false);
  });
});

describe('signing secret', () => {
  it('is at least 256 random bits', () => {
    expect(decodeSecret(generateSecret()).length).toBeGreaterThanOrEqual(32);
    expect(() => decodeSecret(Buffer.alloc(16).toString('base64url'))).toThrow(/at least 32 bytes/);
  });
});

describe('user ids', () => {
  it('allows ordinary ids and refuses paths, blanks and control characters', () => {
    for (const id of ['student', 'j.doe', 'ann_lee-2', 'a@b.edu']) expect(isValidUserId(id), id).toBe(true);
    for (const id of ['', '../etc', 'a/b', ' student', 'a\u0000', '-x', 'x'.repeat(65)]) {
      expect(isValidUserId(id), JSON.stringify(id)).toBe(false);
    }
  });
});
