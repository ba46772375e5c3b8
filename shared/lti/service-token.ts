/**
 * An access token for a platform's services (names and roles, grades): the OAuth 2 client
 * credentials grant at the registration's `auth_token_url`, the tool authenticated by a
 * `private_key_jwt` assertion signed with its current key (LTI Security Framework 1.0 §4.1). The
 * token is kept in memory per registration and scope set until shortly before it expires, and a
 * second caller while a grant is on its way waits for the same grant.
 */
import { randomBytes } from 'node:crypto';
import { importJWK, SignJWT } from 'jose';
import { allowedPlatformHosts } from './platform-address.ts';
import { askPlatform } from './platform-request.ts';
import { platformUrl, type LtiRegistration } from './registration.ts';
import { answerFailure, malformedAnswer, PlatformServiceFailure, unreachableFailure } from './service-failure.ts';
import { LTI_KEY_ALGORITHM, toolKeys } from './tool-keys.ts';

/** How long the assertion proves the tool's identity: one request's worth, with room for clocks. */
export const ASSERTION_LIFETIME_SECONDS = 5 * 60;
/** A token is asked for again this long before its `expires_in` runs out, so no request carries an expiring one. */
export const TOKEN_RENEWAL_MARGIN_SECONDS = 60;
/** A token answer without `expires_in` is kept this long (RFC 6749 §5.1 only recommends it). */
const DEFAULT_TOKEN_LIFETIME_SECONDS = 5 * 60;
const SERVICE = 'The platform token endpoint';

interface CachedToken {
  readonly token: Promise<{ accessToken: string; renewAt: number }>;
}

const tokens = new Map<string, CachedToken>();

/** The cache's key: the registration, its token endpoint and who the tool is there, and the scopes in a stable order. */
const cacheKey = (registration: LtiRegistration, scopes: readonly string[]): string =>
  [
    registration.registrationId,
    registration.authTokenUrl,
    registration.authTokenAudience ?? '',
    registration.clientId,
    ...[...new Set(scopes)].sort(),
  ].join('\n');

/** The tool's `private_key_jwt` client assertion for the registration's token endpoint. */
export async function clientAssertion(registration: LtiRegistration, now: Date = new Date()): Promise<string> {
  const { current } = await toolKeys();
  if (!current?.kid) {
    throw new PlatformServiceFailure('The tool has no signing key yet (npm run admin -- rotate-lti-key makes one)', {
      kind: 'unreachable',
      retryable: false,
    });
  }
  const issuedAt = Math.floor(now.getTime() / 1000);
  return new SignJWT({})
    .setProtectedHeader({ alg: LTI_KEY_ALGORITHM, typ: 'JWT', kid: current.kid })
    .setIssuer(registration.clientId)
    .setSubject(registration.clientId)
    .setAudience(registration.authTokenAudience ?? registration.authTokenUrl)
    .setJti(randomBytes(18).toString('base64url'))
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + ASSERTION_LIFETIME_SECONDS)
    .sign(await importJWK(current, LTI_KEY_ALGORITHM));
}

/**
 * A bearer token of the registration's platform for `scopes`; throws PlatformServiceFailure when
 * the platform cannot be reached or refuses.
 */
export async function serviceToken(registration: LtiRegistration, scopes: readonly string[], now: Date = new Date()): Promise<string> {
  const key = cacheKey(registration, scopes);
  const cached = tokens.get(key);
  if (cached) {
    const held = await cached.token.catch(() => undefined);
    if (held && held.renewAt > now.getTime()) return held.accessToken;
    if (tokens.get(key) === cached) tokens.delete(key);
  }
  const entry: CachedToken = { token: grant(registration, scopes, now) };
  tokens.set(key, entry);
  // A failed grant is not kept: the next caller asks again.
  entry.token.catch(() => tokens.get(key) === entry && tokens.delete(key));
  return (await entry.token).accessToken;
}

/**
 * Forgets a cached token the platform no longer takes (it answered 401: revoked, or the platform
 * lost its tokens), so the next serviceToken asks for a new one instead of using it until it expires.
 */
async function forgetServiceToken(registration: LtiRegistration, scopes: readonly string[], accessToken: string): Promise<void> {
  const key = cacheKey(registration, scopes);
  const cached = tokens.get(key);
  const held = await cached?.token.catch(() => undefined);
  if (held?.accessToken === accessToken && tokens.get(key) === cached) tokens.delete(key);
}

/**
 * One request with the registration's token for `scopes`, asked again once with a new token when
 * the platform answers 401 to a cached one (a platform that revoked it would otherwise refuse
 * every request until the cached token ran out).
 */
export async function withServiceToken<Answer extends { readonly status: number | null }>(
  registration: LtiRegistration,
  scopes: readonly string[],
  request: (token: string) => Promise<Answer>,
  now: Date = new Date(),
): Promise<Answer> {
  const token = await serviceToken(registration, scopes, now);
  const answer = await request(token);
  if (answer.status !== 401) return answer;
  await forgetServiceToken(registration, scopes, token);
  const fresh = await serviceToken(registration, scopes, now);
  return fresh === token ? answer : request(fresh);
}

async function grant(registration: LtiRegistration, scopes: readonly string[], now: Date) {
  const allowed = allowedPlatformHosts();
  const answer = await (async () => {
    const url = platformUrl('auth_token_url', registration.authTokenUrl, allowed);
    return askPlatform(
      'auth_token_url',
      url,
      {
        method: 'POST',
        form: {
          grant_type: 'client_credentials',
          client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
          client_assertion: await clientAssertion(registration, now),
          scope: [...new Set(scopes)].join(' '),
        },
      },
      allowed,
    );
  })().catch((error: unknown) => {
    throw unreachableFailure(SERVICE, error);
  });
  if (answer.status !== 200) throw answerFailure(SERVICE, answer, now);
  let body: { access_token?: unknown; token_type?: unknown; expires_in?: unknown };
  try {
    body = JSON.parse(answer.text) as typeof body;
  } catch {
    throw malformedAnswer(SERVICE, 'something other than JSON');
  }
  if (typeof body !== 'object' || body === null || typeof body.access_token !== 'string' || body.access_token === '') {
    throw malformedAnswer(SERVICE, 'no access_token');
  }
  if (typeof body.token_type !== 'string' || body.token_type.toLowerCase() !== 'bearer') {
    throw malformedAnswer(SERVICE, 'a token that is not a bearer token');
  }
  const lifetime =
    typeof body.expires_in === 'number' && Number.isFinite(body.expires_in) && body.expires_in > 0
      ? body.expires_in
      : DEFAULT_TOKEN_LIFETIME_SECONDS;
  // A short-lived token is kept for half its life rather than not at all.
  const kept = lifetime > 2 * TOKEN_RENEWAL_MARGIN_SECONDS ? lifetime - TOKEN_RENEWAL_MARGIN_SECONDS : lifetime / 2;
  return { accessToken: body.access_token, renewAt: now.getTime() + kept * 1000 };
}
