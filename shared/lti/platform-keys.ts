/**
 * A platform's signing keys (its JWKS), and the check of a launch's ID token against them. The
 * key set is fetched only from the registration's `jwks_url`, on an address the service may reach
 * (public, or a host LTI_ALLOWED_HOSTS names), connecting to the address that check approved,
 * without following redirects and within a time-out. It is cached per registration in this
 * function instance; a key id it does not hold fetches it again (a platform's key rotation), at
 * most once per `KEYS_COOLDOWN_MS`, so tokens with made-up key ids cannot make it fetch on every
 * launch.
 */
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { createRemoteJWKSet, customFetch, decodeJwt, decodeProtectedHeader, errors, jwtVerify, type JWTPayload } from 'jose';
import { checkAuthorizedParty } from '#shared/auth/oidc-rules.ts';
import { Refusal } from '#shared/errors.ts';
import { checkWebhookAddress } from '#shared/webhooks/address.ts';
import { launchTokenRefused } from './failures.ts';
import type { LtiRegistration } from './registration.ts';

/** How long one request for a platform's keys may take. */
export const PLATFORM_TIMEOUT_MS = 3_000;
/** After a key-set fetch, an unknown key id does not fetch it again for this long. */
export const KEYS_COOLDOWN_MS = 2_000;
/** The largest key set read. */
const MAX_KEY_SET_BYTES = 256 * 1024;
/** Clocks of the platform and of this service may differ by this much. */
const CLOCK_TOLERANCE_SECONDS = 30;
/** A launch's ID token issued longer ago than this is refused, whatever its `exp` says (it is used at once). */
const MAX_LAUNCH_TOKEN_AGE_SECONDS = 10 * 60;
/** The signature algorithm LTI 1.3 names (Security Framework 1.0 §5.1.3). */
const ALGORITHMS = ['RS256'];

/** The platform's keys could not be read: nothing was written, and a later launch may succeed. */
export class PlatformKeysUnreachable extends Error {
  override readonly name = 'PlatformKeysUnreachable';
  /** A moment's trouble: the platform-facing answer is 503 with Retry-After (shared/http/platform-answers.ts). */
  readonly $retryable = { throttling: false };
}

/** A GET of a platform URL under the rules above, as the fetch jose asks for. */
export function platformFetch(allowedHosts: readonly string[]) {
  return async (href: string, options: { signal: AbortSignal }): Promise<Response> => {
    const url = new URL(href);
    const check = await checkWebhookAddress(url, allowedHosts);
    if (!check.ok) throw new Error(check.problem);
    const pinned: LookupFunction = (_hostname, lookupOptions, callback) => {
      if (lookupOptions.all) callback(null, [{ address: check.address, family: check.family }]);
      else callback(null, check.address, check.family);
    };
    const response = await new Promise<IncomingMessage>((resolve, reject) => {
      const request = (url.protocol === 'https:' ? https : http).request(url, {
        method: 'GET',
        headers: { accept: 'application/json', 'user-agent': 'course-submission-api-lti' },
        lookup: pinned,
        agent: false,
        signal: AbortSignal.any([options.signal, AbortSignal.timeout(PLATFORM_TIMEOUT_MS)]),
      });
      request.on('response', resolve);
      request.on('error', reject);
      request.end();
    });
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of response as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > MAX_KEY_SET_BYTES) {
        response.destroy();
        throw new Error(`the key set is larger than ${MAX_KEY_SET_BYTES} bytes`);
      }
      chunks.push(chunk);
    }
    // A redirect is answered as it came (jose refuses anything but 200): never followed.
    return new Response(Buffer.concat(chunks), { status: response.statusCode ?? 500 });
  };
}

const keySets = new Map<string, { readonly jwksUrl: string; readonly keys: ReturnType<typeof createRemoteJWKSet> }>();

/** The registration's key set, cached in this instance (again when its URL changed). */
function keysOf(registration: Pick<LtiRegistration, 'registrationId' | 'jwksUrl'>, allowedHosts: readonly string[]) {
  const known = keySets.get(registration.registrationId);
  if (known && known.jwksUrl === registration.jwksUrl) return known.keys;
  const keys = createRemoteJWKSet(new URL(registration.jwksUrl), {
    timeoutDuration: PLATFORM_TIMEOUT_MS,
    cooldownDuration: KEYS_COOLDOWN_MS,
    [customFetch]: platformFetch(allowedHosts),
  });
  keySets.set(registration.registrationId, { jwksUrl: registration.jwksUrl, keys });
  return keys;
}

/**
 * The claims of a genuine launch ID token of the registration's platform for its client, with
 * this nonce; a refusal saying what is wrong with any other; `PlatformKeysUnreachable` when the
 * platform's keys cannot be read.
 */
export async function verifyLaunchToken(
  idToken: string,
  registration: Pick<LtiRegistration, 'registrationId' | 'issuer' | 'clientId' | 'jwksUrl'>,
  nonce: string,
  allowedHosts: readonly string[],
  now = new Date(),
): Promise<JWTPayload> {
  let claimed: JWTPayload;
  try {
    decodeProtectedHeader(idToken);
    claimed = decodeJwt(idToken);
  } catch {
    throw launchTokenRefused({ reason: 'it is not a signed JWT' });
  }
  // Another platform's or another client's token is refused for what it says before anything is fetched.
  if (claimed.iss !== registration.issuer) throw launchTokenRefused({ reason: "it was not issued by this launch's platform" });
  if (!(Array.isArray(claimed.aud) ? claimed.aud : [claimed.aud]).includes(registration.clientId)) {
    throw launchTokenRefused({ reason: 'it was issued for another client' });
  }
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(idToken, keysOf(registration, allowedHosts), {
      algorithms: ALGORITHMS,
      issuer: registration.issuer,
      audience: registration.clientId,
      requiredClaims: ['iss', 'aud', 'exp', 'iat', 'sub', 'nonce'],
      maxTokenAge: MAX_LAUNCH_TOKEN_AGE_SECONDS,
      clockTolerance: CLOCK_TOLERANCE_SECONDS,
      currentDate: now,
    }));
  } catch (error) {
    throw refusalOf(error);
  }
  try {
    checkAuthorizedParty(payload, registration.clientId);
  } catch (error) {
    if (error instanceof Refusal) throw launchTokenRefused({ reason: 'it was issued for another client' });
    throw error;
  }
  if (payload.nonce !== nonce) throw launchTokenRefused({ reason: "its nonce is not the one this launch's login sent" });
  if (typeof payload.sub !== 'string' || payload.sub === '' || payload.sub.length > 255) {
    throw launchTokenRefused({ reason: 'it has no valid sub claim' });
  }
  return payload;
}

/** What a failed verification tells the platform's browser (or the platform's trouble, as an error). */
function refusalOf(error: unknown): Error {
  if (error instanceof errors.JWTExpired) return launchTokenRefused({ reason: 'it has expired' });
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'iat' && error.reason === 'check_failed') return launchTokenRefused({ reason: 'it was issued too long ago' });
    if (error.claim === 'iat' || error.claim === 'nbf') return launchTokenRefused({ reason: 'it is not valid yet (issued in the future)' });
    return launchTokenRefused({ reason: `it has no valid ${error.claim} claim` });
  }
  if (error instanceof errors.JOSEAlgNotAllowed) return launchTokenRefused({ reason: 'it is not signed with RS256' });
  if (error instanceof errors.JWSSignatureVerificationFailed) return launchTokenRefused({ reason: "its signature is not the platform's" });
  if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWKSMultipleMatchingKeys) {
    return launchTokenRefused({ reason: 'it names no key the platform publishes' });
  }
  if (error instanceof errors.JWSInvalid || error instanceof errors.JWTInvalid)
    return launchTokenRefused({ reason: 'it is not a signed JWT' });
  if (error instanceof errors.JOSENotSupported)
    return launchTokenRefused({ reason: 'it is signed in a way this service does not support' });
  // Anything else came from reading the key set: a time-out, a refused connection, not 200, not JSON.
  return new PlatformKeysUnreachable(`the key set of the platform could not be read: ${(error as Error).message}`, { cause: error });
}
