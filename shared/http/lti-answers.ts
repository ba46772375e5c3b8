/** The contracts of the LTI platform-facing routes, shared by the routes that answer alike (a login by query or by form). */
import * as z from 'zod';
import { fail, type RouteContract } from './contract.ts';
import {
  clientIdNeeded,
  deploymentNotAllowed,
  foreignTargetLink,
  loginFieldsMissing,
  platformNotRegistered,
} from '#shared/lti/failures.ts';

/** What a login (GET or POST) may be refused for. */
export const loginFails = [loginFieldsMissing, foreignTargetLink, clientIdNeeded, platformNotRegistered, deploymentNotAllowed];

/** What a login answers, by query or by form: a redirect, or an HTML page naming the cause. */
export const loginContract: RouteContract = {
  tag: 'LTI',
  data: z.null(),
  platform: {
    redirects: [
      {
        status: 302,
        description:
          "To the platform's authorization endpoint (its auth_login_url) with scope=openid, response_type=id_token, response_mode=form_post, prompt=none, client_id, redirect_uri (the launch URL), login_hint, lti_message_hint, state and nonce.",
      },
    ],
  },
  fails: loginFails.map(fail),
};
