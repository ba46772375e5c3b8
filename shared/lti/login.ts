/**
 * The third-party initiated login (LTI Core 1.3 §4.1, Security Framework 1.0 §5.1.1): the
 * platform names itself and the user, the tool finds the registration and sends the browser to
 * the platform's authorization endpoint with a fresh state and nonce. The state is kept
 * server-side (no cookie: an LMS's iframe seldom keeps one), for ten minutes, until the launch
 * consumes it.
 */
import { createHash, randomBytes } from 'node:crypto';
import { getLtiRegistration, ltiRegistrations, putLtiState } from '#shared/data/lti.ts';
import { clientIdNeeded, deploymentNotAllowed, foreignTargetLink, loginFieldsMissing, platformNotRegistered } from './failures.ts';
import { registrationIdOf, toolUrls, type LtiRegistration } from './registration.ts';

/** How long a login's state waits for its launch. */
export const STATE_TTL_SECONDS = 600;

/** What a platform sends to start a login (form or query); absent fields are undefined. */
export interface LoginRequest {
  readonly iss?: string;
  readonly login_hint?: string;
  readonly target_link_uri?: string;
  readonly lti_message_hint?: string;
  readonly client_id?: string;
  readonly lti_deployment_id?: string;
}

/** A random value of 256 bits, as URL-safe text. */
export const randomToken = (): string => randomBytes(32).toString('base64url');

/** What a state or launch code is stored under: its hash, so the table never holds what a browser carries. */
export const hashOf = (secret: string): string => createHash('sha256').update(secret).digest('base64url');

/**
 * The registration a login names: by issuer and client id; without a client id, the issuer's one
 * registration (several: the login must name which).
 */
export function chooseRegistration(
  registrations: readonly LtiRegistration[],
  issuer: string,
  clientId: string | undefined,
): LtiRegistration {
  const candidates = registrations.filter(
    (registration) => registration.issuer === issuer && (clientId === undefined || registration.clientId === clientId),
  );
  if (candidates.length > 1) throw clientIdNeeded({ issuer });
  const [registration] = candidates;
  if (!registration) throw platformNotRegistered({ issuer, client_id: clientId ?? '(none)' });
  return registration;
}

/** Whether launches may come from this deployment: one the registration names, or any when it names none. */
export const deploymentAllowed = (registration: Pick<LtiRegistration, 'deploymentIds'>, deploymentId: string): boolean =>
  registration.deploymentIds.length === 0 || registration.deploymentIds.includes(deploymentId);

/** The authentication request (Security Framework 1.0 §5.1.1.2) the browser is sent to. */
export function authenticationRequest(
  registration: Pick<LtiRegistration, 'authLoginUrl' | 'clientId'>,
  login: { readonly loginHint: string; readonly messageHint: string | undefined },
  launchUrl: string,
  state: string,
  nonce: string,
): string {
  const url = new URL(registration.authLoginUrl);
  const parameters: Record<string, string> = {
    scope: 'openid',
    response_type: 'id_token',
    response_mode: 'form_post',
    prompt: 'none',
    client_id: registration.clientId,
    redirect_uri: launchUrl,
    login_hint: login.loginHint,
    ...(login.messageHint === undefined ? {} : { lti_message_hint: login.messageHint }),
    state,
    nonce,
  };
  for (const [name, value] of Object.entries(parameters)) url.searchParams.set(name, value);
  return url.toString();
}

/** The target link must lead to this tool: its launch URL, on the host the login reached. */
export function checkTargetLink(targetLinkUri: string, launchUrl: string): void {
  let target: URL;
  try {
    target = new URL(targetLinkUri);
  } catch {
    throw foreignTargetLink({ launch_url: launchUrl });
  }
  if (target.origin !== new URL(launchUrl).origin) throw foreignTargetLink({ launch_url: launchUrl });
}

/** A login: the state stored, and where the browser goes next. */
export async function startLogin(request: LoginRequest, base: string, now = new Date()): Promise<string> {
  const issuer = request.iss?.trim();
  const loginHint = request.login_hint;
  if (!issuer || !loginHint || !request.target_link_uri) throw loginFieldsMissing();
  const clientId = request.client_id?.trim() || undefined;
  const registration = clientId
    ? await getLtiRegistration(registrationIdOf(issuer, clientId))
    : chooseRegistration(await ltiRegistrations(), issuer, undefined);
  if (!registration) throw platformNotRegistered({ issuer, client_id: clientId ?? '(none)' });
  const launchUrl = toolUrls(base).launch_url;
  checkTargetLink(request.target_link_uri, launchUrl);
  const deploymentId = request.lti_deployment_id || undefined;
  if (deploymentId !== undefined && !deploymentAllowed(registration, deploymentId))
    throw deploymentNotAllowed({ deployment_id: deploymentId });
  const [state, nonce] = [randomToken(), randomToken()];
  await putLtiState({
    stateHash: hashOf(state),
    registrationId: registration.registrationId,
    nonce,
    loginHint,
    messageHint: request.lti_message_hint ?? null,
    deploymentId: deploymentId ?? null,
    createdAt: now.toISOString(),
    expiresAt: new Date(now.getTime() + STATE_TTL_SECONDS * 1000),
  });
  return authenticationRequest(registration, { loginHint, messageHint: request.lti_message_hint }, launchUrl, state, nonce);
}
