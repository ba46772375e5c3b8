/** Registering LTI platforms (superusers): the rules of registration.ts applied, then stored. */
import { deleteLtiRegistration, ltiRegistrationRef, ltiRegistrations, putLtiRegistration } from '#shared/data/lti.ts';
import { badDeploymentId, registrationExists, registrationFieldsMissing, registrationNotFound } from './failures.ts';
import { allowedPlatformHosts, checkPlatformAddress } from './platform-address.ts';
import {
  DEFAULT_USER_ID_CLAIM,
  MAX_DEPLOYMENT_ID_LENGTH,
  claimPath,
  issuerOf,
  platformUrl,
  registrationIdOf,
  registrationRecord,
  type LtiRegistration,
} from './registration.ts';

export interface RegistrationFields {
  readonly issuer: string;
  readonly client_id: string;
  readonly auth_login_url: string;
  readonly auth_token_url: string;
  readonly jwks_url: string;
  readonly deployment_ids?: readonly string[] | undefined;
  readonly auth_token_audience?: string | undefined;
  readonly user_id_claim?: string | undefined;
  readonly user_id_suffix?: string | undefined;
  readonly create_users?: boolean | undefined;
  readonly label?: string | undefined;
}

const blankToUndefined = (value: string | undefined): string | undefined => (value?.trim() ? value.trim() : undefined);

/** Registers a platform; refused when its URLs are not the platform's to reach, or it is registered already. */
export async function registerPlatform(fields: RegistrationFields, userId: string, base: string, now = new Date()) {
  const allowed = allowedPlatformHosts();
  const clientId = fields.client_id.trim();
  if (clientId === '') throw registrationFieldsMissing();
  const issuer = issuerOf(fields.issuer, allowed);
  const urls = {
    auth_login_url: platformUrl('auth_login_url', fields.auth_login_url, allowed),
    auth_token_url: platformUrl('auth_token_url', fields.auth_token_url, allowed),
    jwks_url: platformUrl('jwks_url', fields.jwks_url, allowed),
  };
  const deploymentIds = [...new Set((fields.deployment_ids ?? []).map((id) => id.trim()).filter(Boolean))];
  if (deploymentIds.some((id) => id.length > MAX_DEPLOYMENT_ID_LENGTH)) throw badDeploymentId({ max: MAX_DEPLOYMENT_ID_LENGTH });
  const userIdClaim = blankToUndefined(fields.user_id_claim) ?? DEFAULT_USER_ID_CLAIM;
  claimPath(userIdClaim);
  for (const [field, url] of Object.entries(urls)) await checkPlatformAddress(field, url, allowed);
  const registration: LtiRegistration = {
    registrationId: registrationIdOf(issuer, clientId),
    issuer,
    clientId,
    authLoginUrl: urls.auth_login_url.href,
    authTokenUrl: urls.auth_token_url.href,
    jwksUrl: urls.jwks_url.href,
    deploymentIds,
    authTokenAudience: blankToUndefined(fields.auth_token_audience) ?? null,
    userIdClaim,
    userIdSuffix: blankToUndefined(fields.user_id_suffix) ?? null,
    createUsers: fields.create_users === true,
    label: blankToUndefined(fields.label) ?? null,
    createdAt: now.toISOString(),
    createdBy: userId,
  };
  if (!(await putLtiRegistration(registration))) {
    throw registrationExists({ issuer, client_id: clientId, registration_id: registration.registrationId });
  }
  return registrationRecord(registration, base);
}

export const listRegistrations = async (base: string) =>
  (await ltiRegistrations()).map((registration) => registrationRecord(registration, base));

/** One registration as read with the token check (`registrationReads`). */
export function registrationAnswer(registration: LtiRegistration | undefined, registrationId: string, base: string) {
  if (!registration) throw registrationNotFound({ registration_id: registrationId });
  return registrationRecord(registration, base);
}

export const registrationReads = (registrationId: string) => ({ registration: ltiRegistrationRef(registrationId) });

export async function removeRegistration(registrationId: string): Promise<null> {
  if (!(await deleteLtiRegistration(registrationId))) throw registrationNotFound({ registration_id: registrationId });
  return null;
}
