/**
 * Verifying an OpenID Connect ID token against the configured issuer's published keys. The only
 * addresses ever fetched are the issuer's discovery document and the key set it names (checked by
 * `issuerKeys`); redirects are not followed. Both are cached per function instance: the key set
 * is fetched again for a key id it does not hold (at most once per `KEYS_COOLDOWN_MS`, so tokens
 * with made-up key ids cannot make it fetch on every request).
 */
import { createRemoteJWKSet, decodeJwt, decodeProtectedHeader, errors, jwtVerify, type JWTPayload } from 'jose';
import { idTokenRefused } from './failures.ts';
import { checkAlgorithm, checkAuthorizedParty, checkNonce, discoveryUrl, issuerKeys } from './oidc-rules.ts';

/** How long one request to the issuer may take. */
export const ISSUER_TIMEOUT_MS = 3_000;
/** After a key-set fetch, an unknown key id does not fetch it again for this long. */
export const KEYS_COOLDOWN_MS = 2_000;
/** The discovery document is read again after this long (the key set has its own cache). */
const DISCOVERY_MAX_AGE_MS = 60 * 60 * 1000;
/** An ID token issued longer ago than this is refused, whatever its `exp` says. */
const MAX_ID_TOKEN_AGE_SECONDS = 24 * 60 * 60;
/** Clocks of the issuer and of this service may differ by this much. */
const CLOCK_TOLERANCE_SECONDS = 30;

/**
 * The issuer could not be reached, or answered nothing usable: nothing was written and a later
 * attempt may succeed (the envelope answers `error` with code `RETRYABLE`).
 */
export class IssuerUnreachable extends Error {
  override readonly name = 'IssuerUnreachable';
  readonly $retryable = { throttling: false };
}

interface Issuer {
  readonly algorithms: readonly string[];
  readonly keys: ReturnType<typeof createRemoteJWKSet>;
  readonly readAt: number;
}

const issuers = new Map<string, Promise<Issuer>>();

async function fetchDiscovery(issuer: string): Promise<Issuer> {
  const url = discoveryUrl(issuer);
  let document: unknown;
  try {
    const response = await fetch(url, {
      redirect: 'manual',
      signal: AbortSignal.timeout(ISSUER_TIMEOUT_MS),
      headers: { accept: 'application/json' },
    });
    if (response.status !== 200) throw new Error(`HTTP ${response.status}`);
    document = await response.json();
  } catch (error) {
    throw new IssuerUnreachable(`the discovery document ${url.href} could not be read: ${(error as Error).message}`, { cause: error });
  }
  const { jwksUri, algorithms } = issuerKeys(issuer, document);
  const keys = createRemoteJWKSet(jwksUri, { timeoutDuration: ISSUER_TIMEOUT_MS, cooldownDuration: KEYS_COOLDOWN_MS });
  return { algorithms, keys, readAt: Date.now() };
}

/** The issuer's discovery, read once per instance (again after a failure or once it is old). */
function issuerOf(issuer: string): Promise<Issuer> {
  const known = issuers.get(issuer);
  if (known) return known;
  const reading = fetchDiscovery(issuer);
  issuers.set(issuer, reading);
  reading.then(
    (read) =>
      setTimeout(
        () => issuers.get(issuer) === reading && issuers.delete(issuer),
        DISCOVERY_MAX_AGE_MS - (Date.now() - read.readAt),
      ).unref(),
    () => issuers.get(issuer) === reading && issuers.delete(issuer),
  );
  return reading;
}

export interface IdTokenCheck {
  readonly issuer: string;
  readonly clientId: string;
  readonly nonce?: string | undefined;
}

/**
 * The claims of a genuine ID token of the issuer for the client; a refusal saying what is wrong
 * with any other; `IssuerUnreachable` when the issuer's keys cannot be read.
 */
export async function verifyIdToken(idToken: string, check: IdTokenCheck): Promise<JWTPayload> {
  let alg: unknown;
  let claimed: JWTPayload;
  try {
    alg = decodeProtectedHeader(idToken).alg;
    claimed = decodeJwt(idToken);
  } catch {
    throw idTokenRefused({ reason: 'it is not a signed JWT' });
  }
  checkAlgorithm(alg);
  // Another issuer's or another client's token is refused for what it says before anything is
  // fetched (its signature could only fail against this issuer's keys).
  if (claimed.iss !== check.issuer) throw idTokenRefused({ reason: 'it was issued by another identity provider' });
  if (!(Array.isArray(claimed.aud) ? claimed.aud : [claimed.aud]).includes(check.clientId)) {
    throw idTokenRefused({ reason: 'it was issued for another client' });
  }
  const issuer = await issuerOf(check.issuer);
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(idToken, issuer.keys, {
      algorithms: [...issuer.algorithms],
      issuer: check.issuer,
      audience: check.clientId,
      requiredClaims: ['iss', 'aud', 'exp', 'iat', 'sub'],
      maxTokenAge: MAX_ID_TOKEN_AGE_SECONDS,
      clockTolerance: CLOCK_TOLERANCE_SECONDS,
    }));
  } catch (error) {
    throw refusalOf(error);
  }
  checkAuthorizedParty(payload, check.clientId);
  checkNonce(payload, check.nonce);
  return payload;
}

/** What a failed verification tells the caller (or the issuer's trouble, as an error). */
function refusalOf(error: unknown): Error {
  if (error instanceof errors.JWTExpired) return idTokenRefused({ reason: 'it has expired' });
  if (error instanceof errors.JWTClaimValidationFailed) {
    switch (error.claim) {
      case 'iss':
        return idTokenRefused({ reason: 'it was issued by another identity provider' });
      case 'aud':
        return idTokenRefused({ reason: 'it was issued for another client' });
      case 'iat':
      case 'nbf':
        return idTokenRefused({ reason: 'it is not valid yet (issued in the future)' });
      default:
        return idTokenRefused({ reason: `it has no valid ${error.claim} claim` });
    }
  }
  if (error instanceof errors.JOSEAlgNotAllowed) {
    return idTokenRefused({ reason: 'it is not signed with an algorithm the identity provider uses' });
  }
  if (error instanceof errors.JWSSignatureVerificationFailed || error instanceof errors.JWKSNoMatchingKey) {
    return idTokenRefused({ reason: "its signature is not the identity provider's" });
  }
  if (error instanceof errors.JWKSMultipleMatchingKeys) return idTokenRefused({ reason: 'it names no key id the identity provider has' });
  if (error instanceof errors.JWSInvalid || error instanceof errors.JWTInvalid) return idTokenRefused({ reason: 'it is not a signed JWT' });
  if (error instanceof errors.JOSENotSupported) return idTokenRefused({ reason: 'it is signed in a way this service does not support' });
  // Anything else came from reading the key set: a time-out, a refused connection, not 200, not JSON.
  return new IssuerUnreachable(`the key set of the identity provider could not be read: ${(error as Error).message}`, { cause: error });
}
