import { describe, expect, it } from 'vitest';
import { Refusal } from '#shared/errors.ts';
import { apiBaseUrl, claimAt, claimPath, issuerOf, platformUrl, registrationIdOf } from '#shared/lti/registration.ts';
import { checkPlatformAddress } from '#shared/lti/platform-address.ts';
import { newToolKey, parseToolKeys, publicKeySet, rotatedToolKeys } from '#shared/lti/tool-keys.ts';
import { refusalMessage } from '../support/refusals.ts';

describe('a registration id', () => {
  it('is one per issuer and client id, whatever else differs, and never the same for another pair', () => {
    const id = registrationIdOf('https://canvas.instructure.com', '10000000000001');
    expect(id).toMatch(/^lti_[A-Za-z0-9_-]{22}$/);
    expect(registrationIdOf('https://canvas.instructure.com', '10000000000001')).toBe(id);
    expect(registrationIdOf('https://canvas.instructure.com', '10000000000002')).not.toBe(id);
    // The separator keeps "a" + "bc" apart from "ab" + "c".
    expect(registrationIdOf('https://a.edu/x', 'bc')).not.toBe(registrationIdOf('https://a.edu/xb', 'c'));
  });
});

describe("a platform's URLs", () => {
  it('must be https without credentials or fragment; plain http only on an allowed host', () => {
    expect(platformUrl('jwks_url', ' https://lms.example.edu/jwks?x=1 ', []).href).toBe('https://lms.example.edu/jwks?x=1');
    for (const bad of [
      'http://lms.example.edu/jwks',
      'https://u:p@lms.example.edu/',
      'https://lms.example.edu/#f',
      'lms.example.edu',
      'ftp://x.edu/',
    ]) {
      expect(refusalMessage(() => platformUrl('jwks_url', bad, []))).toBe(
        'The jwks_url must be an absolute https:// URL without a user name, password or fragment.',
      );
    }
    expect(platformUrl('auth_login_url', 'http://127.0.0.1:4010/auth', ['127.0.0.1:4010']).href).toBe('http://127.0.0.1:4010/auth');
    expect(() => platformUrl('auth_login_url', 'http://127.0.0.1:4011/auth', ['127.0.0.1:4010'])).toThrow(Refusal);
  });

  it('an issuer is kept exactly as written (trimmed), and takes no query', () => {
    expect(issuerOf(' https://canvas.instructure.com ', [])).toBe('https://canvas.instructure.com');
    expect(issuerOf('https://moodle.example.edu/', [])).toBe('https://moodle.example.edu/');
    expect(() => issuerOf('https://lms.example.edu/?tenant=1', [])).toThrow(Refusal);
  });

  it('may not reach this machine, its metadata service or a private network unless the host is allowed', async () => {
    const resolve = async (host: string) =>
      host === 'inside.example.edu' ? [{ address: '10.1.2.3' }] : host === 'public.example.edu' ? [{ address: '203.0.113.7' }] : [];
    await expect(checkPlatformAddress('jwks_url', new URL('https://public.example.edu/k'), [], resolve)).resolves.toBeUndefined();
    await expect(checkPlatformAddress('jwks_url', new URL('https://inside.example.edu/k'), [], resolve)).rejects.toThrow(
      "The jwks_url's host has the address 10.1.2.3, which is a private network address; platforms are reached only on public addresses (or hosts LTI_ALLOWED_HOSTS names).",
    );
    await expect(checkPlatformAddress('jwks_url', new URL('https://169.254.169.254/k'), [], resolve)).rejects.toThrow(
      'a link-local address',
    );
    await expect(checkPlatformAddress('jwks_url', new URL('https://[::1]/k'), [], resolve)).rejects.toThrow('a loopback address');
    await expect(checkPlatformAddress('jwks_url', new URL('https://nowhere.example.edu/k'), [], resolve)).rejects.toThrow(
      "The jwks_url's host nowhere.example.edu could not be found.",
    );
    await expect(
      checkPlatformAddress('jwks_url', new URL('http://127.0.0.1:4010/k'), ['127.0.0.1:4010'], resolve),
    ).resolves.toBeUndefined();
  });
});

describe('the user id claim', () => {
  const claims = {
    email: 'sam@example.edu',
    'https://purl.imsglobal.org/spec/lti/claim/lis': { person_sourcedid: 'S123' },
    'https://purl.imsglobal.org/spec/lti/claim/custom': { user_username: 'sam', empty: '' },
  };

  it('is a top-level claim or a member of a claim URI', () => {
    expect(claimAt(claims, claimPath('email'))).toBe('sam@example.edu');
    expect(claimAt(claims, claimPath('https://purl.imsglobal.org/spec/lti/claim/lis#person_sourcedid'))).toBe('S123');
    expect(claimAt(claims, claimPath('https://purl.imsglobal.org/spec/lti/claim/custom#user_username'))).toBe('sam');
    expect(claimAt(claims, claimPath('https://purl.imsglobal.org/spec/lti/claim/custom#empty'))).toBeUndefined();
    expect(claimAt(claims, claimPath('https://purl.imsglobal.org/spec/lti/claim/custom#missing'))).toBeUndefined();
    expect(claimAt(claims, claimPath('sub'))).toBeUndefined();
  });

  it('refuses what names no claim', () => {
    for (const bad of ['', 'email#x', 'a b', 'https://x.edu/claim#', 'https://x.edu/claim#a#b', 'https://x.edu/c#mem ber']) {
      expect(
        refusalMessage(() => claimPath(bad)),
        bad,
      ).toMatch(/^The user_id_claim must name a claim/);
    }
  });
});

describe("the tool's URLs", () => {
  it('are https on the host reached, http only on this machine, and a made-up Host cannot inject anything', () => {
    expect(apiBaseUrl('api.example.edu', undefined)).toBe('https://api.example.edu');
    expect(apiBaseUrl('localhost:3000', undefined)).toBe('http://localhost:3000');
    expect(apiBaseUrl('127.0.0.1:3000', 'https')).toBe('https://127.0.0.1:3000');
    expect(apiBaseUrl('evil.example"/><script>', undefined)).toBe('http://localhost');
  });
});

describe("the tool's keys", () => {
  it('publish the current key and then the next, public halves only', async () => {
    const keys = await rotatedToolKeys({});
    const published = publicKeySet(keys).keys;
    expect(published.map((key) => key.kid)).toEqual([keys.current.kid, keys.next.kid]);
    for (const key of published) {
      expect(Object.keys(key).sort()).toEqual(['alg', 'e', 'kid', 'kty', 'n', 'use']);
      expect(key).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig' });
    }
  });

  it('rotate by making the published next key current, so a platform already holds the key that signs', async () => {
    const before = { current: await newToolKey(), next: await newToolKey() };
    const after = await rotatedToolKeys(before);
    expect(after.current).toEqual(before.next);
    expect(after.next.kid).not.toBe(before.next.kid);
    expect(publicKeySet(parseToolKeys(JSON.stringify(after))).keys.map((key) => key.kid)).toEqual([before.next.kid, after.next.kid]);
  });

  it('are none while the secret holds no keys (a fresh deployment)', () => {
    expect(publicKeySet(parseToolKeys('{"placeholder":"x"}'))).toEqual({ keys: [] });
    expect(publicKeySet(parseToolKeys('not json'))).toEqual({ keys: [] });
  });
});
