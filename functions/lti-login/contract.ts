/** What `lti-login` answers: a redirect or an HTML page naming the cause (shared/http/contract.ts says how they are used). */
import * as z from 'zod';
import { fail, type RouteContract } from '#shared/http/contract.ts';
import { loginFails } from '#shared/http/lti-answers.ts';

export const contract: RouteContract = {
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
