import { describe, expect, it } from 'vitest';
import {
  checkAlgorithm,
  checkAuthorizedParty,
  checkNonce,
  issuerKeys,
  jwksUriRefusal,
  newUserFromClaims,
  userIdFromClaims,
} from '#shared/auth/oidc-rules.ts';
import { isLoopbackHost, parseSetting, signInProblems } from '#shared/config.ts';

const ISSUER = 'https://login.example.edu/realms/staff';
const refusal = (reason: string) => `Could not sign in with that ID token: ${reason}.`;

describe('the issuer setting', () => {
  it('takes https anywhere, http only on a loopback address, nothing with a query, fragment or credentials', () => {
    expect(parseSetting('OIDC_ISSUER', ISSUER)).toBe(ISSUER);
    expect(parseSetting('OIDC_ISSUER', 'http://127.0.0.1:9090')).toBe('http://127.0.0.1:9090');
    expect(parseSetting('OIDC_ISSUER', 'http://localhost:9090/')).toBe('http://localhost:9090/');
    expect(parseSetting('OIDC_ISSUER', '')).toBeUndefined();
    for (const bad of [
      'http://login.example.edu',
      'http://10.0.0.1',
      'ftp://x.edu',
      'login.example.edu',
      'https://a.edu/?x=1',
      'https://a.edu/#x',
      'https://u:p@a.edu',
    ]) {
      expect(() => parseSetting('OIDC_ISSUER', bad), bad).toThrow(/^OIDC_ISSUER must be/);
    }
    expect(isLoopbackHost('127.4.5.6')).toBe(true);
    expect(isLoopbackHost('[::1]')).toBe(true);
    expect(isLoopbackHost('127.0.0.1.example.com')).toBe(false);
  });

  it('refuses settings that make no sense together', () => {
    expect(signInProblems({ OIDC_ISSUER: ISSUER, OIDC_CLIENT_ID: 'api', PASSWORD_LOGIN: 'off' })).toEqual([]);
    expect(signInProblems({ OIDC_ISSUER: ISSUER, OIDC_CLIENT_ID: undefined, PASSWORD_LOGIN: 'on' })).toEqual([
      'OIDC_CLIENT_ID must be set with OIDC_ISSUER',
    ]);
    expect(signInProblems({ OIDC_ISSUER: undefined, OIDC_CLIENT_ID: undefined, PASSWORD_LOGIN: 'superusers' })).toEqual([
      'PASSWORD_LOGIN=superusers needs OIDC_ISSUER (the way in for everyone else)',
    ]);
    expect(() => parseSetting('PASSWORD_LOGIN', 'maybe')).toThrow('PASSWORD_LOGIN must be on, superusers or off, not "maybe"');
  });
});

describe('the discovery document', () => {
  it('must name the issuer exactly, a key set the service may fetch and an asymmetric algorithm', () => {
    const keys = issuerKeys(ISSUER, {
      issuer: ISSUER,
      jwks_uri: `${ISSUER}/certs`,
      id_token_signing_alg_values_supported: ['HS256', 'RS256', 'none'],
    });
    expect(keys).toEqual({ jwksUri: new URL(`${ISSUER}/certs`), algorithms: ['RS256'] });
    expect(issuerKeys(ISSUER, { issuer: ISSUER, jwks_uri: `${ISSUER}/certs` }).algorithms).toEqual(['RS256']);
    expect(() => issuerKeys(ISSUER, { issuer: `${ISSUER}/`, jwks_uri: `${ISSUER}/certs` })).toThrow('names the issuer');
    expect(() =>
      issuerKeys(ISSUER, { issuer: ISSUER, jwks_uri: `${ISSUER}/certs`, id_token_signing_alg_values_supported: ['HS256'] }),
    ).toThrow('no asymmetric algorithm');
    expect(() => issuerKeys(ISSUER, { issuer: ISSUER, jwks_uri: 'http://169.254.169.254/latest/meta-data' })).toThrow('is refused');
    expect(() => issuerKeys(ISSUER, [])).toThrow('not a JSON object');
  });

  it('fetches keys on the issuer’s origin, or over https at another public host name, never elsewhere', () => {
    const issuer = new URL(ISSUER);
    expect(jwksUriRefusal(issuer, new URL('https://login.example.edu/keys'))).toBeUndefined();
    expect(jwksUriRefusal(new URL('https://accounts.google.com'), new URL('https://www.googleapis.com/oauth2/v3/certs'))).toBeUndefined();
    expect(jwksUriRefusal(new URL('http://127.0.0.1:9090'), new URL('http://127.0.0.1:9090/jwks'))).toBeUndefined();
    for (const url of [
      'http://keys.example.edu/jwks',
      'https://keys.example.edu:8443/jwks',
      'https://127.0.0.1/jwks',
      'https://localhost/jwks',
      'https://10.0.0.8/jwks',
      'https://[fd00::1]/jwks',
      'https://intranet/jwks',
      'https://user:pw@login.example.edu/keys',
    ]) {
      expect(jwksUriRefusal(issuer, new URL(url)), url).toBeDefined();
    }
    expect(jwksUriRefusal(new URL('http://127.0.0.1:9090'), new URL('http://127.0.0.1:9091/jwks'))).toBeDefined();
  });
});

describe('an ID token’s claims', () => {
  const rule = { userIdClaim: 'preferred_username', userIdSuffix: undefined, emailsVerified: false };
  const checked = { emailsVerified: false };

  it('accepts only asymmetric algorithms', () => {
    for (const alg of ['RS256', 'ES256', 'PS384', 'EdDSA']) expect(() => checkAlgorithm(alg)).not.toThrow();
    for (const alg of ['none', 'HS256', 'HS512', undefined, 42, 'rs256']) {
      expect(() => checkAlgorithm(alg)).toThrow(refusal('it is not signed with an algorithm this service accepts'));
    }
  });

  it('names the user by the claim, with the suffix required (in any case of ASCII letters) and removed', () => {
    expect(userIdFromClaims({ preferred_username: 'jdoe' }, rule)).toBe('jdoe');
    const withSuffix = { userIdClaim: 'email', userIdSuffix: '@example.edu', emailsVerified: false };
    const verified = { email_verified: true };
    expect(userIdFromClaims({ email: 'jdoe@EXAMPLE.edu', ...verified }, withSuffix)).toBe('jdoe');
    // The Kelvin sign lower-cases to k by Unicode's rules: it is no k here.
    const kth = { ...withSuffix, userIdSuffix: '@kth.se' };
    expect(userIdFromClaims({ email: 'admin@KTH.se', ...verified }, kth)).toBe('admin');
    expect(() => userIdFromClaims({ email: 'admin@\u212Ath.se', ...verified }, kth)).toThrow(
      refusal('its email does not end with @kth.se'),
    );
    for (const unverified of [{}, { email_verified: 'true' }, { email_verified: 'false' }, { email_verified: 1 }]) {
      expect(() => userIdFromClaims({ email: 'jdoe@example.edu', ...unverified }, withSuffix), JSON.stringify(unverified)).toThrow(
        refusal('its email is not verified by the identity provider'),
      );
    }
    expect(userIdFromClaims({ email: 'jdoe@example.edu' }, { ...withSuffix, emailsVerified: true })).toBe('jdoe');
    expect(() => userIdFromClaims({ email: 'jdoe@example.com', ...verified }, withSuffix)).toThrow(
      refusal('its email does not end with @example.edu'),
    );
    expect(() => userIdFromClaims({ email: '@example.edu', ...verified }, withSuffix)).toThrow(
      refusal('its email does not end with @example.edu'),
    );
    expect(() => userIdFromClaims({ email: 'jdoe@example.edu', email_verified: false }, withSuffix)).toThrow(
      refusal('its email is not verified by the identity provider'),
    );
    expect(() => userIdFromClaims({}, rule)).toThrow(refusal('it has no preferred_username claim'));
    expect(() => userIdFromClaims({ preferred_username: 42 }, rule)).toThrow(refusal('it has no preferred_username claim'));
    expect(() => userIdFromClaims({ preferred_username: '../x' }, rule)).toThrow(
      refusal('its preferred_username is not a user id this service takes'),
    );
  });

  it('needs this client as azp with several audiences, and the nonce sent', () => {
    expect(() => checkAuthorizedParty({ aud: 'api' }, 'api')).not.toThrow();
    expect(() => checkAuthorizedParty({ aud: ['api', 'other'], azp: 'api' }, 'api')).not.toThrow();
    expect(() => checkAuthorizedParty({ aud: ['api', 'other'] }, 'api')).toThrow(refusal('it was issued for another client'));
    expect(() => checkAuthorizedParty({ aud: 'api', azp: 'other' }, 'api')).toThrow(refusal('it was issued for another client'));
    expect(() => checkNonce({ nonce: 'n' }, 'n')).not.toThrow();
    expect(() => checkNonce({}, undefined)).not.toThrow();
    expect(() => checkNonce({}, 'n')).toThrow(refusal('its nonce is not the one sent'));
  });

  it('gives a new account its names and verified e-mail address, with level user', () => {
    expect(
      newUserFromClaims('jdoe', { given_name: 'Jane', family_name: 'Doe', email: 'jdoe@example.edu', email_verified: true }, checked),
    ).toEqual({
      user_id: 'jdoe',
      first_name: 'Jane',
      last_name: 'Doe',
      email: 'jdoe@example.edu',
      level: 'user',
    });
    expect(newUserFromClaims('jdoe', { name: 'Jane Q Doe', email: 'jdoe@example.edu', email_verified: true }, checked)).toMatchObject({
      first_name: 'Jane Q',
      last_name: 'Doe',
    });
    expect(newUserFromClaims('jdoe', { email: 'jdoe@example.edu', email_verified: true }, checked)).toMatchObject({
      first_name: 'jdoe',
      last_name: 'jdoe',
    });
    expect(() => newUserFromClaims('jdoe', { name: 'Jane Doe' }, checked)).toThrow(
      refusal('it has no verified email claim to create the account from'),
    );
    expect(() => newUserFromClaims('jdoe', { email: 'jdoe@example.edu', email_verified: false }, checked)).toThrow(/no verified email/);
    expect(() => newUserFromClaims('jdoe', { email: 'jdoe@example.edu' }, checked)).toThrow(/no verified email/);
    expect(newUserFromClaims('jdoe', { email: 'jdoe@example.edu' }, { emailsVerified: true })).toMatchObject({ email: 'jdoe@example.edu' });
  });

  it('refuses a new account whose claims hold a name or address a spreadsheet would run as a formula', () => {
    const verified = { email: 'jdoe@example.edu', email_verified: true };
    for (const [claims, field, first] of [
      [{ given_name: '=HYPERLINK("x")', family_name: 'Doe' }, 'first_name', '='],
      [{ given_name: 'Jane', family_name: '+1' }, 'last_name', '+'],
      [{ name: '-Jane Doe' }, 'first_name', '-'],
      [{ name: 'Jane @Doe' }, 'last_name', '@'],
    ] as const) {
      expect(() => newUserFromClaims('jdoe', { ...verified, ...claims }, checked), JSON.stringify(claims)).toThrow(
        refusal(`the account's ${field} from its claims starts with "${first}", which spreadsheets run as a formula`),
      );
    }
    expect(() => newUserFromClaims('jdoe', { ...verified, email: '=cmd@example.edu' }, checked)).toThrow(
      refusal('the account\'s email from its claims starts with "=", which spreadsheets run as a formula'),
    );
  });
});
