/**
 * The rules of signing in with an OpenID Connect ID token, as pure functions: which key-set URL
 * the issuer's discovery document may name, which signing algorithms count, and which user an
 * ID token's claims name. The network and the signature check are in oidc.ts.
 */
import { isLoopbackHost, type PasswordLoginMode } from '#shared/config.ts';
import { isValidUserId } from '#shared/ids.ts';
import type { NewUserFields } from '#shared/users/profile.ts';
import type { AccessLevel } from '#shared/users/user.ts';
import type { Identity } from '#shared/data/users.ts';
import { accountFieldProblem } from '#shared/users/account-fields.ts';
import { MAX_EMAIL_LENGTH, MAX_NAME_LENGTH } from '#shared/users/limits.ts';
import { idTokenRefused } from './failures.ts';

/** Signature algorithms with a public key: nothing else is ever accepted (never `none`, never HMAC). */
export const ASYMMETRIC_ALGORITHMS: readonly string[] = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
];

/** The discovery document's address: the issuer with `/.well-known/openid-configuration` appended. */
export const discoveryUrl = (issuer: string): URL => new URL(`${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`);

/** A discovery document the service cannot use: the operator's to fix, never the caller's. */
export class ProviderMisconfigured extends Error {
  override readonly name = 'ProviderMisconfigured';
}

export interface IssuerKeys {
  readonly jwksUri: URL;
  /** The asymmetric algorithms the issuer signs ID tokens with. */
  readonly algorithms: readonly string[];
}

/**
 * What the service takes from the issuer's discovery document: it must name the configured issuer
 * exactly, a key set the service may fetch (`jwksUriAllowed`) and at least one asymmetric signing
 * algorithm (RS256 when it names none, as the discovery standard's default).
 */
export function issuerKeys(issuer: string, document: unknown): IssuerKeys {
  if (typeof document !== 'object' || document === null || Array.isArray(document)) {
    throw new ProviderMisconfigured(`the discovery document of ${issuer} is not a JSON object`);
  }
  const { issuer: named, jwks_uri: jwksUri, id_token_signing_alg_values_supported: advertised } = document as Record<string, unknown>;
  if (named !== issuer) throw new ProviderMisconfigured(`the discovery document of ${issuer} names the issuer ${JSON.stringify(named)}`);
  if (typeof jwksUri !== 'string') throw new ProviderMisconfigured(`the discovery document of ${issuer} names no jwks_uri`);
  let url: URL;
  try {
    url = new URL(jwksUri);
  } catch {
    throw new ProviderMisconfigured(`the jwks_uri of ${issuer} is not a URL`);
  }
  const refused = jwksUriRefusal(new URL(issuer), url);
  if (refused) throw new ProviderMisconfigured(`the jwks_uri ${url.href} of ${issuer} is refused: ${refused}`);
  const listed = Array.isArray(advertised) ? advertised.filter((alg): alg is string => typeof alg === 'string') : ['RS256'];
  const algorithms = listed.filter((alg) => ASYMMETRIC_ALGORITHMS.includes(alg));
  if (algorithms.length === 0)
    throw new ProviderMisconfigured(`${issuer} signs ID tokens with no asymmetric algorithm (${listed.join(', ')})`);
  return { jwksUri: url, algorithms };
}

/**
 * Why the service will not fetch this key set, or undefined when it will. On the issuer's own
 * origin it is always fetched (so a loopback issuer's keys over http too). Elsewhere only over
 * https, on the default port, from a host name that is neither an IP address nor the machine
 * itself: some providers (Google) publish their keys on another host, and the discovery document
 * naming it came from the configured issuer, over https.
 */
export function jwksUriRefusal(issuer: URL, jwksUri: URL): string | undefined {
  if (jwksUri.username || jwksUri.password) return 'it carries credentials';
  if (jwksUri.origin === issuer.origin) return undefined;
  if (jwksUri.protocol !== 'https:') return 'another origin than the issuer, not over https';
  if (jwksUri.port !== '') return 'another origin than the issuer, on a port of its own';
  const host = jwksUri.hostname;
  if (isLoopbackHost(host)) return 'another origin than the issuer, on this machine';
  if (host.startsWith('[') || /^[\d.]+$/.test(host) || !host.includes('.')) return 'another origin than the issuer, not a public host name';
  return undefined;
}

/** Refuses a token signed with anything but an asymmetric algorithm, before any key is fetched. */
export function checkAlgorithm(alg: unknown): void {
  if (typeof alg !== 'string' || !ASYMMETRIC_ALGORITHMS.includes(alg)) {
    throw idTokenRefused({ reason: 'it is not signed with an algorithm this service accepts' });
  }
}

export interface UserIdRule {
  readonly userIdClaim: string;
  readonly userIdSuffix: string | undefined;
  /** The provider verifies every address it puts in an ID token (OIDC_EMAILS_VERIFIED). */
  readonly emailsVerified: boolean;
}

/**
 * Whether the ID token's `email` is one the provider verified: `email_verified` is the boolean
 * `true` (not absent, not the string "true"), unless the deployment says the provider verifies
 * every address.
 */
export const emailVerified = (claims: Readonly<Record<string, unknown>>, rule: Pick<UserIdRule, 'emailsVerified'>): boolean =>
  claims.email_verified === true || rule.emailsVerified;

/** Lower case for ASCII letters only: Unicode's rules map other letters (the Kelvin sign) onto ASCII ones. */
const asciiLowerCase = (text: string): string => text.replace(/[A-Z]/g, (letter) => letter.toLowerCase());

/**
 * The user an ID token names: its `userIdClaim`, with `userIdSuffix` (compared without regard to
 * the case of ASCII letters, as domain names are) required and removed. An e-mail claim the
 * provider did not say it verified names nobody.
 */
export function userIdFromClaims(claims: Readonly<Record<string, unknown>>, rule: UserIdRule): string {
  const value = claims[rule.userIdClaim];
  if (typeof value !== 'string' || value === '') throw idTokenRefused({ reason: `it has no ${rule.userIdClaim} claim` });
  if (rule.userIdClaim === 'email' && !emailVerified(claims, rule)) {
    throw idTokenRefused({ reason: 'its email is not verified by the identity provider' });
  }
  let userId = value;
  if (rule.userIdSuffix) {
    const suffix = rule.userIdSuffix;
    if (value.length <= suffix.length || !asciiLowerCase(value).endsWith(asciiLowerCase(suffix))) {
      throw idTokenRefused({ reason: `its ${rule.userIdClaim} does not end with ${suffix}` });
    }
    userId = value.slice(0, -suffix.length);
  }
  if (!isValidUserId(userId)) throw idTokenRefused({ reason: `its ${rule.userIdClaim} is not a user id this service takes` });
  return userId;
}

/**
 * The authorized party: an ID token for several audiences must name this client as `azp` (and
 * one that names an `azp` at all must name this client).
 */
export function checkAuthorizedParty(claims: Readonly<Record<string, unknown>>, clientId: string): void {
  const several = Array.isArray(claims.aud) && claims.aud.length > 1;
  if ((several || claims.azp !== undefined) && claims.azp !== clientId) {
    throw idTokenRefused({ reason: 'it was issued for another client' });
  }
}

/**
 * Whether an account of this level signs in with an ID token: where only superusers log in with a
 * password, superusers do so only (unless OIDC_SUPERUSERS says otherwise), so that whoever holds
 * an account at the provider never becomes a superuser here.
 */
export const mayUseIdToken = (level: AccessLevel, passwordLogin: PasswordLoginMode, rule: { readonly superusers: boolean }): boolean =>
  level !== 'superuser' || passwordLogin !== 'superusers' || rule.superusers;

/** The identity an ID token proves (its `sub` at the configured issuer). */
export const identityOf = (claims: Readonly<Record<string, unknown>>, issuer: string): Identity => ({
  issuer,
  subject: String(claims.sub),
});

/**
 * Whether an account may be signed in to by this identity: one linked to none yet (it is linked
 * now), or to this same one. A user name at the provider may be renamed or given to someone else;
 * its `sub` never is, so an account is never inherited with the name.
 */
export const identityMaySignIn = (linked: Identity | undefined, presented: Identity): boolean =>
  linked === undefined || (linked.issuer === presented.issuer && linked.subject === presented.subject);

/** A nonce sent with the request must be the token's own. */
export function checkNonce(claims: Readonly<Record<string, unknown>>, nonce: string | undefined): void {
  if (nonce !== undefined && nonce !== '' && claims.nonce !== nonce) throw idTokenRefused({ reason: 'its nonce is not the one sent' });
}

const claimText = (claims: Readonly<Record<string, unknown>>, name: string): string | undefined => {
  const value = claims[name];
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
};

/**
 * A new account's fields from an ID token's standard claims: given and family name (or the full
 * name split at its last space, or the user id), and the e-mail address, which it must have,
 * verified. They are held to the rule of every account field (account-fields.ts): a name a
 * spreadsheet would run as a formula refuses the sign-in rather than being altered.
 */
export function newUserFromClaims(
  userId: string,
  claims: Readonly<Record<string, unknown>>,
  rule: Pick<UserIdRule, 'emailsVerified'>,
): NewUserFields {
  const full = claimText(claims, 'name');
  const lastSpace = full?.lastIndexOf(' ') ?? -1;
  const given = claimText(claims, 'given_name') ?? (full && lastSpace > 0 ? full.slice(0, lastSpace) : full) ?? userId;
  const family = claimText(claims, 'family_name') ?? (full && lastSpace > 0 ? full.slice(lastSpace + 1) : undefined) ?? userId;
  const email = claimText(claims, 'email');
  if (!email || email.length > MAX_EMAIL_LENGTH || !emailVerified(claims, rule)) {
    throw idTokenRefused({ reason: 'it has no verified email claim to create the account from' });
  }
  const fields = { first_name: given.slice(0, MAX_NAME_LENGTH), last_name: family.slice(0, MAX_NAME_LENGTH), email };
  for (const field of ['first_name', 'last_name', 'email'] as const) {
    const problem = accountFieldProblem(field, fields[field]);
    if (problem) throw idTokenRefused({ reason: `the account's ${field} from its claims ${problem}` });
  }
  return { user_id: userId, ...fields, level: 'user' };
}
