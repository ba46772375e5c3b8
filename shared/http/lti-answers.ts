/** The fails of the LTI platform-facing routes, shared by the routes that answer them (their contracts list them). */
import {
  clientIdNeeded,
  deploymentNotAllowed,
  foreignTargetLink,
  loginFieldsMissing,
  platformNotRegistered,
} from '#shared/lti/failures.ts';

/** What a login (GET or POST) may be refused for. */
export const loginFails = [loginFieldsMissing, foreignTargetLink, clientIdNeeded, platformNotRegistered, deploymentNotAllowed];
