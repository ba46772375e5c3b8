/**
 * The rules of an LTI 1.3 launch (Core 1.3 §5, Security Framework 1.0 §5.1.3) as pure functions:
 * which messages count, what the launch's claims say (deployment, context, roles, gradeable), the
 * course role an LMS role maps to, and who the user is here at their first launch.
 */
import { isValidGradeableId, isValidUserId } from '#shared/ids.ts';
import { courseGroups } from '#shared/courses/course.ts';
import type { CourseGroup } from '#shared/data/enrollments.ts';
import { deploymentNotAllowed, launchTokenRefused, launchUserUnnamed } from './failures.ts';
import { deploymentAllowed } from './login.ts';
import type { LtiDeepLinking } from '#shared/data/lti.ts';
import { claimAt, claimPath, MAX_LTI_URL_LENGTH, platformUrl, type LtiRegistration } from './registration.ts';

export const LTI_CLAIM = 'https://purl.imsglobal.org/spec/lti/claim/';
export const AGS_ENDPOINT_CLAIM = 'https://purl.imsglobal.org/spec/lti-ags/claim/endpoint';
export const NRPS_CLAIM = 'https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice';
export const DEEP_LINKING_SETTINGS_CLAIM = 'https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings';
/** The longest `data` of a deep-linking launch kept (and echoed): platforms send an id or a short signed value. */
export const MAX_DEEP_LINKING_DATA_LENGTH = 4096;
export const MESSAGE_TYPES = ['LtiResourceLinkRequest', 'LtiDeepLinkingRequest'] as const;
export type MessageType = (typeof MESSAGE_TYPES)[number];

type Claims = Readonly<Record<string, unknown>>;

const record = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
const text = (value: unknown, max = 1000): string | undefined =>
  typeof value === 'string' && value !== '' && value.length <= max ? value : undefined;

/** What a launch's claims say, once they are checked. */
export interface LaunchMessage {
  readonly messageType: MessageType;
  readonly deploymentId: string;
  readonly contextId: string | null;
  readonly roles: readonly string[];
  /** The roster service (NRPS) of the context, when the platform offers it. */
  readonly membershipsUrl: string | null;
  /** The grade service (AGS) endpoints of the launch, when the platform offers them. */
  readonly grades: { readonly lineitems: string | null; readonly lineitem: string | null; readonly scope: readonly string[] } | null;
  /** A deep-linking launch's settings (null: a resource-link launch). */
  readonly deepLinking: LtiDeepLinking | null;
}

/**
 * The LTI claims of a verified ID token: version 1.3.0, a message type this tool takes, a
 * deployment the registration allows (any, when it names none), the context and roles.
 */
export function launchMessage(
  claims: Claims,
  registration: Pick<LtiRegistration, 'deploymentIds'>,
  allowedHosts: readonly string[] = [],
): LaunchMessage {
  if (claims[`${LTI_CLAIM}version`] !== '1.3.0') throw launchTokenRefused({ reason: 'its LTI version is not 1.3.0' });
  const messageType = claims[`${LTI_CLAIM}message_type`];
  if (!MESSAGE_TYPES.includes(messageType as MessageType)) {
    throw launchTokenRefused({ reason: 'its message type is not LtiResourceLinkRequest or LtiDeepLinkingRequest' });
  }
  const deploymentId = text(claims[`${LTI_CLAIM}deployment_id`], 255);
  if (!deploymentId) throw launchTokenRefused({ reason: 'it names no deployment_id' });
  if (!deploymentAllowed(registration, deploymentId)) throw deploymentNotAllowed({ deployment_id: deploymentId });
  const rolesClaim = claims[`${LTI_CLAIM}roles`];
  if (rolesClaim !== undefined && !Array.isArray(rolesClaim)) throw launchTokenRefused({ reason: 'its roles claim is not a list' });
  const roles = (rolesClaim ?? []).filter((role): role is string => typeof role === 'string');
  const nrps = record(claims[NRPS_CLAIM]);
  const ags = record(claims[AGS_ENDPOINT_CLAIM]);
  return {
    messageType: messageType as MessageType,
    deploymentId,
    contextId: text(record(claims[`${LTI_CLAIM}context`])?.id, 255) ?? null,
    roles,
    membershipsUrl: text(nrps?.context_memberships_url, 2000) ?? null,
    grades: ags
      ? {
          lineitems: text(ags.lineitems, 2000) ?? null,
          lineitem: text(ags.lineitem, 2000) ?? null,
          scope: Array.isArray(ags.scope) ? ags.scope.filter((scope): scope is string => typeof scope === 'string') : [],
        }
      : null,
    deepLinking: messageType === 'LtiDeepLinkingRequest' ? deepLinkingSettings(claims, allowedHosts) : null,
  };
}

/**
 * A deep-linking launch's settings (Deep Linking 2.0 §4.4.1): its `deep_link_return_url` a URL of
 * the platform as any other (https, or http on an allowed host; no credentials or fragment), the
 * content types it accepts, whether it accepts several items, and its `data`, kept to be echoed.
 */
export function deepLinkingSettings(claims: Claims, allowedHosts: readonly string[]): LtiDeepLinking {
  const settings = record(claims[DEEP_LINKING_SETTINGS_CLAIM]);
  if (!settings) throw launchTokenRefused({ reason: 'its deep-linking request has no deep_linking_settings' });
  const returnUrl = text(settings.deep_link_return_url, MAX_LTI_URL_LENGTH);
  if (!returnUrl) throw launchTokenRefused({ reason: 'its deep_linking_settings name no deep_link_return_url' });
  platformUrl('deep_link_return_url', returnUrl, allowedHosts);
  const acceptTypes = settings.accept_types;
  if (!Array.isArray(acceptTypes)) throw launchTokenRefused({ reason: 'its deep_linking_settings name no accept_types' });
  const data = settings.data;
  if (data !== undefined && data !== null && text(data, MAX_DEEP_LINKING_DATA_LENGTH) === undefined) {
    throw launchTokenRefused({
      reason: `its deep_linking_settings data is not a string of at most ${MAX_DEEP_LINKING_DATA_LENGTH} characters`,
    });
  }
  return {
    returnUrl: returnUrl.trim(),
    acceptTypes: acceptTypes.filter((type): type is string => typeof type === 'string' && type.length <= 100).slice(0, 20),
    acceptMultiple: settings.accept_multiple === true || settings.accept_multiple === 'true',
    data: typeof data === 'string' ? data : null,
  };
}

const MEMBERSHIP = 'http://purl.imsglobal.org/vocab/lis/v2/membership';

/**
 * The course role each LMS context role gives (Core 1.3 §A.2.3), by its full URI or the short name
 * some platforms (Canvas) send; any other role (Mentor, ContentDeveloper, institution and system
 * roles) gives none.
 */
const ROLE_GROUPS: Readonly<Record<string, CourseGroup>> = {
  [`${MEMBERSHIP}#Instructor`]: courseGroups.instructor,
  [`${MEMBERSHIP}#Administrator`]: courseGroups.instructor,
  [`${MEMBERSHIP}/Instructor#TeachingAssistant`]: courseGroups.fullAccessGrader,
  [`${MEMBERSHIP}/Instructor#Grader`]: courseGroups.limitedAccessGrader,
  [`${MEMBERSHIP}#Learner`]: courseGroups.student,
  Instructor: courseGroups.instructor,
  Administrator: courseGroups.instructor,
  TeachingAssistant: courseGroups.fullAccessGrader,
  Grader: courseGroups.limitedAccessGrader,
  Learner: courseGroups.student,
};

/** The course role of someone with these LMS roles: the highest any of them gives, or none. */
export function courseGroupOf(roles: readonly string[]): CourseGroup | undefined {
  const groups = roles.map((role) => ROLE_GROUPS[role]).filter((group): group is CourseGroup => group !== undefined);
  return groups.length === 0 ? undefined : (Math.min(...groups) as CourseGroup);
}

/**
 * The gradeables a resource-link launch may open, first choice first: `custom.gradeable_id`, then
 * the grade service's line item `resourceId`. The launch opens the first that is a gradeable of
 * the course (none: the launch names no gradeable).
 */
export function gradeableCandidates(claims: Claims, messageType: MessageType): string[] {
  if (messageType !== 'LtiResourceLinkRequest') return [];
  const candidates = [
    record(claims[`${LTI_CLAIM}custom`])?.gradeable_id,
    record(claims['https://purl.imsglobal.org/spec/lti-ags/claim/lineitem'])?.resourceId,
    record(claims[`${LTI_CLAIM}lti-ags`])?.resourceId,
  ];
  const ids = candidates.filter((candidate): candidate is string => typeof candidate === 'string' && isValidGradeableId(candidate));
  return [...new Set(ids)];
}

/** Lower case for ASCII letters only, as domain names compare. */
const asciiLowerCase = (value: string): string => value.replace(/[A-Z]/g, (letter) => letter.toLowerCase());

/**
 * The user id a first launch names, by the registration's `user_id_claim` and `user_id_suffix`.
 * An e-mail address counts only when the token marks it verified (`email_verified` the boolean
 * true); afterwards the binding of the launch's `sub` decides, not this.
 */
export function launchUserId(claims: Claims, registration: Pick<LtiRegistration, 'userIdClaim' | 'userIdSuffix'>): string {
  const path = claimPath(registration.userIdClaim);
  const value = claimAt(claims, path);
  const unverifiedEmail = path.claim === 'email' && path.member === undefined && claims.email_verified !== true;
  if (value === undefined || unverifiedEmail) {
    throw launchUserUnnamed({ claim: unverifiedEmail && value !== undefined ? 'verified email' : registration.userIdClaim });
  }
  let userId = value;
  const suffix = registration.userIdSuffix;
  if (suffix) {
    if (value.length <= suffix.length || !asciiLowerCase(value).endsWith(asciiLowerCase(suffix))) {
      throw launchUserUnnamed({ claim: `${registration.userIdClaim} ending with ${suffix}` });
    }
    userId = value.slice(0, -suffix.length);
  }
  if (!isValidUserId(userId)) throw launchUserUnnamed({ claim: `${registration.userIdClaim} that is a user id here` });
  return userId;
}
