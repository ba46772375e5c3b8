/**
 * The rules of an LTI 1.3 registration, as pure functions: its id (one per issuer and client id,
 * so a platform is registered once), which URLs it may name, how a user id is read from a
 * launch's claims, and what the API answers about it.
 */
import { createHash } from 'node:crypto';
import { isAllowedHost } from '#shared/network/addresses.ts';
import type { LtiRegistration } from '#shared/data/lti.ts';
import { badPlatformUrl, badUserIdClaim } from './failures.ts';

export type { LtiRegistration } from '#shared/data/lti.ts';

export const MAX_LTI_URL_LENGTH = 2000;
export const MAX_CLIENT_ID_LENGTH = 255;
export const MAX_DEPLOYMENT_ID_LENGTH = 255;
export const MAX_DEPLOYMENT_IDS = 50;
export const MAX_LABEL_LENGTH = 200;
export const MAX_CLAIM_LENGTH = 300;
/** The most gradeables one deep link adds. */
export const MAX_DEEP_LINK_ITEMS = 50;
/** The claim a user id is read from when the registration names none. */
export const DEFAULT_USER_ID_CLAIM = 'email';

/**
 * A registration's id: the platform's issuer and client id hashed, so the same pair always gets
 * the same id and a second registration of it is refused by the write's condition.
 */
export const registrationIdOf = (issuer: string, clientId: string): string =>
  `lti_${createHash('sha256').update(`${issuer}\n${clientId}`).digest('base64url').slice(0, 22)}`;

/**
 * A URL of the platform the service may use: absolute https without credentials or fragment; plain
 * http only on a host LTI_ALLOWED_HOSTS names (a platform on the operator's own network or a test).
 * Where the host's addresses may be reached is checked apart (platform-address.ts).
 */
export function platformUrl(field: string, value: string, allowedHosts: readonly string[]): URL {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw badPlatformUrl({ field });
  }
  const allowed = isAllowedHost(url, allowedHosts);
  if (url.username || url.password || url.hash || !(url.protocol === 'https:' || (allowed && url.protocol === 'http:'))) {
    throw badPlatformUrl({ field });
  }
  return url;
}

/**
 * The issuer as the platform writes it in its tokens (compared exactly, so not normalised beyond
 * trimming): an https URL without query or fragment.
 */
export function issuerOf(value: string, allowedHosts: readonly string[]): string {
  const issuer = value.trim();
  const url = platformUrl('issuer', issuer, allowedHosts);
  if (url.search) throw badPlatformUrl({ field: 'issuer' });
  return issuer;
}

/** Where a user id is read from: a top-level claim, or a member of one (`<claim URI>#<member>`). */
export interface ClaimPath {
  readonly claim: string;
  readonly member?: string;
}

const CLAIM_NAME = /^[A-Za-z0-9_.:/-]+$/;
const MEMBER_NAME = /^[A-Za-z0-9_.-]+$/;

/** The claim path a registration's `user_id_claim` names; refused when it names none. */
export function claimPath(value: string): ClaimPath {
  const hash = value.lastIndexOf('#');
  const [claim, member] = hash < 0 ? [value, undefined] : [value.slice(0, hash), value.slice(hash + 1)];
  if (!CLAIM_NAME.test(claim) || (member !== undefined && !MEMBER_NAME.test(member))) throw badUserIdClaim();
  // A member is read from a claim URI only: `email#x` would be a typing slip, not an object claim.
  if (member !== undefined && !/^https?:\/\//.test(claim)) throw badUserIdClaim();
  return member === undefined ? { claim } : { claim, member };
}

/** The value at a claim path of the launch's claims, when it is a non-empty string. */
export function claimAt(claims: Readonly<Record<string, unknown>>, path: ClaimPath): string | undefined {
  const top = claims[path.claim];
  const value =
    path.member === undefined ? top : typeof top === 'object' && top !== null ? (top as Record<string, unknown>)[path.member] : undefined;
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** The tool's own URLs a platform's administrator pastes into the LMS. */
export interface ToolUrls {
  readonly login_url: string;
  readonly launch_url: string;
  readonly jwks_url: string;
  readonly deep_linking_url: string;
  readonly config_url: string;
}

/** The tool's URLs under the API's base URL (`https://api.example.edu`): the launch URL also takes deep-linking requests. */
export const toolUrls = (base: string): ToolUrls => ({
  login_url: `${base}/api/lti/login`,
  launch_url: `${base}/api/lti/launch`,
  jwks_url: `${base}/api/lti/jwks`,
  deep_linking_url: `${base}/api/lti/launch`,
  config_url: `${base}/api/lti/config`,
});

/**
 * The API's base URL as the platform reaches it, from the request's Host (and, behind a proxy
 * that says so, X-Forwarded-Proto): https, unless the host is this machine, as in `npm start`.
 */
export function apiBaseUrl(host: string | undefined, forwardedProto: string | undefined): string {
  const name = (host ?? '').trim().toLowerCase();
  const safeHost = /^[a-z0-9.-]+(:\d{1,5})?$|^\[[0-9a-f:.]+\](:\d{1,5})?$/.test(name) ? name : 'localhost';
  const loopback = /^(localhost|127\.\d+\.\d+\.\d+|\[::1\])(:\d+)?$/.test(safeHost);
  const proto = forwardedProto === 'http' || forwardedProto === 'https' ? forwardedProto : loopback ? 'http' : 'https';
  return `${proto}://${safeHost}`;
}

/** A registration as the API answers it. */
export const registrationRecord = (registration: LtiRegistration, base: string) => ({
  registration_id: registration.registrationId,
  issuer: registration.issuer,
  client_id: registration.clientId,
  auth_login_url: registration.authLoginUrl,
  auth_token_url: registration.authTokenUrl,
  jwks_url: registration.jwksUrl,
  deployment_ids: [...registration.deploymentIds],
  auth_token_audience: registration.authTokenAudience,
  user_id_claim: registration.userIdClaim,
  user_id_suffix: registration.userIdSuffix,
  create_users: registration.createUsers,
  label: registration.label,
  created_at: registration.createdAt,
  created_by: registration.createdBy,
  tool: toolUrls(base),
});
