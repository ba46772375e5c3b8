/**
 * LTI Dynamic Registration 1.0: a superuser's single-use invitation (an hour), which the LMS opens
 * with its OpenID configuration and a registration token; the tool reads the configuration,
 * registers itself as a client at the platform and stores the registration the platform answers,
 * as a superuser registering it by hand would have, consuming the invitation in the same write.
 */
import { randomUUID } from 'node:crypto';
import {
  claimLtiInvitation,
  getLtiInvitation,
  putLtiInvitation,
  putLtiRegistrationByInvitation,
  releaseLtiInvitation,
  type LtiInvitation,
} from '#shared/data/lti.ts';
import {
  invitationExpired,
  invitationInUse,
  invitationUnknown,
  issuerOriginMismatch,
  platformConfigurationInvalid,
  platformConfigurationUnreadable,
  platformRefusedRegistration,
  registerFieldsMissing,
  registrationExists,
} from './failures.ts';
import { hashOf, randomToken } from './login.ts';
import { allowedPlatformHosts, checkPlatformAddress } from './platform-address.ts';
import { askPlatform, PlatformUnreachable } from './platform-request.ts';
import {
  DEFAULT_USER_ID_CLAIM,
  MAX_CLIENT_ID_LENGTH,
  MAX_DEPLOYMENT_ID_LENGTH,
  claimPath,
  issuerOf,
  platformUrl,
  registrationIdOf,
  toolUrls,
  type LtiRegistration,
} from './registration.ts';
import { TOOL_SCOPES, USERNAME_CUSTOM_FIELD } from './tool-config.ts';

/** How long an invitation may be used. */
export const INVITATION_TTL_SECONDS = 3600;
/** How long one register holds an invitation while it asks the platform (longer than its two requests may take). */
export const INVITATION_CLAIM_SECONDS = 60;

export const TOOL_CONFIGURATION = 'https://purl.imsglobal.org/spec/lti-tool-configuration';

export interface InvitationFields {
  readonly label?: string | undefined;
  readonly user_id_claim?: string | undefined;
  readonly user_id_suffix?: string | undefined;
  readonly create_users?: boolean | undefined;
}

const blankToUndefined = (value: string | undefined): string | undefined => (value?.trim() ? value.trim() : undefined);

/** Issues an invitation: its URL carries the secret, which only its hash is stored under. */
export async function inviteRegistration(fields: InvitationFields, userId: string, base: string, now = new Date()) {
  const userIdClaim = blankToUndefined(fields.user_id_claim) ?? DEFAULT_USER_ID_CLAIM;
  claimPath(userIdClaim);
  const secret = randomToken();
  const invitation: LtiInvitation = {
    invitationHash: hashOf(secret),
    label: blankToUndefined(fields.label) ?? null,
    userIdClaim,
    userIdSuffix: blankToUndefined(fields.user_id_suffix) ?? null,
    createUsers: fields.create_users === true,
    createdAt: now.toISOString(),
    createdBy: userId,
    // Whole seconds, as the table's TTL keeps it, so the page naming its end says what the answer said.
    expiresAt: new Date(Math.floor(now.getTime() / 1000) * 1000 + INVITATION_TTL_SECONDS * 1000),
  };
  await putLtiInvitation(invitation);
  return {
    url: `${base}/api/lti/register?${new URLSearchParams({ invitation: secret })}`,
    expires_at: invitation.expiresAt.toISOString(),
    label: invitation.label,
    user_id_claim: invitation.userIdClaim,
    user_id_suffix: invitation.userIdSuffix,
    create_users: invitation.createUsers,
  };
}

/** The platform's endpoints, from its OpenID configuration. */
export interface PlatformConfiguration {
  readonly issuer: string;
  readonly authorizationEndpoint: URL;
  readonly tokenEndpoint: URL;
  readonly jwksUri: URL;
  readonly registrationEndpoint: URL;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The platform's configuration as the tool will use it (Dynamic Registration §3.4): an issuer on
 * the origin of the URL it was read from (so a platform cannot name another's issuer), RS256 ID
 * tokens, and the four endpoints, each a URL a registration may name. Pure.
 */
export function readPlatformConfiguration(
  configurationUrl: URL,
  document: unknown,
  allowedHosts: readonly string[],
): PlatformConfiguration {
  if (!isRecord(document)) throw platformConfigurationInvalid({ problem: 'it is not a JSON object' });
  if (typeof document.issuer !== 'string' || document.issuer === '') throw platformConfigurationInvalid({ problem: 'it names no issuer' });
  const issuer = issuerOf(document.issuer, allowedHosts);
  if (new URL(issuer).origin !== configurationUrl.origin) throw issuerOriginMismatch({ issuer, origin: configurationUrl.origin });
  const algorithms = document.id_token_signing_alg_values_supported;
  if (!Array.isArray(algorithms) || !algorithms.includes('RS256'))
    throw platformConfigurationInvalid({ problem: 'it does not sign ID tokens with RS256 (id_token_signing_alg_values_supported)' });
  const endpoint = (name: string): URL => {
    const value = document[name];
    if (typeof value !== 'string' || value === '') throw platformConfigurationInvalid({ problem: `it names no ${name}` });
    return platformUrl(name, value, allowedHosts);
  };
  return {
    issuer,
    authorizationEndpoint: endpoint('authorization_endpoint'),
    tokenEndpoint: endpoint('token_endpoint'),
    jwksUri: endpoint('jwks_uri'),
    registrationEndpoint: endpoint('registration_endpoint'),
  };
}

/** The client registration the tool asks the platform for (Dynamic Registration §3.5). Pure. */
export function clientRegistration(base: string, label: string | null) {
  const urls = toolUrls(base);
  return {
    application_type: 'web',
    response_types: ['id_token'],
    grant_types: ['implicit', 'client_credentials'],
    initiate_login_uri: urls.login_url,
    redirect_uris: [urls.launch_url],
    client_name: label ?? 'Course Submission API',
    jwks_uri: urls.jwks_url,
    token_endpoint_auth_method: 'private_key_jwt',
    scope: TOOL_SCOPES.join(' '),
    [TOOL_CONFIGURATION]: {
      domain: new URL(base).host,
      target_link_uri: urls.launch_url,
      custom_parameters: { [USERNAME_CUSTOM_FIELD]: '$User.username' },
      claims: ['iss', 'sub', 'name', 'given_name', 'family_name', 'email'],
      messages: [{ type: 'LtiResourceLinkRequest' }, { type: 'LtiDeepLinkingRequest', target_link_uri: urls.deep_linking_url }],
    },
  };
}

/** The client id (and deployment id, when the platform made one) of the platform's answer. Pure. */
export function registeredClient(answer: unknown): { readonly clientId: string; readonly deploymentId: string | undefined } {
  if (
    !isRecord(answer) ||
    typeof answer.client_id !== 'string' ||
    answer.client_id === '' ||
    answer.client_id.length > MAX_CLIENT_ID_LENGTH
  )
    throw platformRefusedRegistration({ problem: 'its answer names no client_id' });
  const configuration = answer[TOOL_CONFIGURATION];
  const deploymentId = isRecord(configuration) ? configuration.deployment_id : undefined;
  const usable = typeof deploymentId === 'string' && deploymentId !== '' && deploymentId.length <= MAX_DEPLOYMENT_ID_LENGTH;
  return { clientId: answer.client_id, deploymentId: usable ? deploymentId : undefined };
}

/** What the LMS opens the invitation URL with. */
export interface RegisterRequest {
  readonly invitation?: string | undefined;
  readonly openid_configuration?: string | undefined;
  readonly registration_token?: string | undefined;
}

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
};

/** Why the platform's answer is not a success, for the page: its OAuth error (RFC 7591 §3.2.2), or its status. */
function refusalOf(status: number, text: string): string {
  const answer = parseJson(text);
  const error = isRecord(answer) && typeof answer.error === 'string' ? answer.error.slice(0, 64) : undefined;
  const description = isRecord(answer) && typeof answer.error_description === 'string' ? answer.error_description.slice(0, 200) : undefined;
  return [`HTTP ${status}`, error, description].filter(Boolean).join(', ');
}

/**
 * Registers the tool at the platform that opened an invitation, and stores the registration.
 * Nothing is written unless it is stored: an invitation unknown, used or expired, or a platform
 * whose configuration is unusable, refuses before any write; once the invitation is claimed, a
 * platform that cannot be reached or refuses the registration gives it back, usable for the rest
 * of its hour (the administrator may start again from the LMS).
 */
export async function registerByInvitation(request: RegisterRequest, base: string, now = new Date()): Promise<void> {
  const secret = request.invitation?.trim();
  const configurationAt = request.openid_configuration?.trim();
  if (!secret || !configurationAt) throw registerFieldsMissing();
  const invitationHash = hashOf(secret);
  const invitation = await getLtiInvitation(invitationHash);
  if (!invitation) throw invitationUnknown();
  if (invitation.expiresAt.getTime() <= now.getTime()) throw invitationExpired({ expires_at: invitation.expiresAt.toISOString() });

  const allowed = allowedPlatformHosts();
  const configurationUrl = platformUrl('openid_configuration', configurationAt, allowed);
  const read = await askPlatform('openid_configuration', configurationUrl, { method: 'GET' }, allowed).catch((error: unknown) => {
    if (error instanceof PlatformUnreachable) throw platformConfigurationUnreadable({ problem: error.message });
    throw error;
  });
  if (read.status !== 200) throw platformConfigurationUnreadable({ problem: `HTTP ${read.status}` });
  const platform = readPlatformConfiguration(configurationUrl, parseJson(read.text), allowed);
  for (const [field, url] of Object.entries({
    authorization_endpoint: platform.authorizationEndpoint,
    token_endpoint: platform.tokenEndpoint,
    jwks_uri: platform.jwksUri,
  }))
    await checkPlatformAddress(field, url, allowed);

  const claim = randomUUID();
  const claimedUntil = new Date(now.getTime() + INVITATION_CLAIM_SECONDS * 1000);
  if (!(await claimLtiInvitation(invitationHash, claim, now, claimedUntil))) throw invitationInUse();
  try {
    const token = request.registration_token?.trim();
    const asked = await askPlatform(
      'registration_endpoint',
      platform.registrationEndpoint,
      {
        method: 'POST',
        json: clientRegistration(base, invitation.label),
        ...(token ? { headers: { authorization: `Bearer ${token}` } } : {}),
      },
      allowed,
    ).catch((error: unknown) => {
      if (error instanceof PlatformUnreachable) throw platformRefusedRegistration({ problem: error.message });
      throw error;
    });
    if (asked.status !== 200 && asked.status !== 201) throw platformRefusedRegistration({ problem: refusalOf(asked.status, asked.text) });
    const client = registeredClient(parseJson(asked.text));
    const registration: LtiRegistration = {
      registrationId: registrationIdOf(platform.issuer, client.clientId),
      issuer: platform.issuer,
      clientId: client.clientId,
      authLoginUrl: platform.authorizationEndpoint.href,
      authTokenUrl: platform.tokenEndpoint.href,
      jwksUrl: platform.jwksUri.href,
      deploymentIds: client.deploymentId ? [client.deploymentId] : [],
      authTokenAudience: null,
      userIdClaim: invitation.userIdClaim,
      userIdSuffix: invitation.userIdSuffix,
      createUsers: invitation.createUsers,
      label: invitation.label,
      createdAt: now.toISOString(),
      createdBy: invitation.createdBy,
    };
    const outcome = await putLtiRegistrationByInvitation(registration, invitationHash, claim);
    if (outcome === 'invitation-lost') throw invitationUnknown();
    if (outcome === 'registration-exists')
      throw registrationExists({ issuer: platform.issuer, client_id: client.clientId, registration_id: registration.registrationId });
  } catch (error) {
    await releaseLtiInvitation(invitationHash, claim);
    throw error;
  }
}

/**
 * The page a successful register answers: its script tells the LMS's window that opened it (an
 * iframe's parent, or a pop-up's opener) that the registration is done (§3.6), so the LMS closes it.
 */
export const REGISTERED_PAGE = {
  title: 'The tool is registered.',
  lines: ['The LMS may now close this window; an administrator there may still need to enable the tool.'],
  script:
    'for (const target of [window.parent, window.opener]) if (target && target !== window) target.postMessage({ subject: "org.imsglobal.lti.close" }, "*");',
} as const;
