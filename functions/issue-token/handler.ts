import { signInForm } from '#shared/auth/login-form.ts';
import { issueTokenForIdToken } from '#shared/auth/oidc-login.ts';
import { issueToken } from '#shared/auth/tokens.ts';
import { signInSettings } from '#shared/config.ts';
import { endpoint } from '#shared/http/endpoint.ts';
import { issueLaunchSession } from '#shared/lti/launch-session.ts';
import { definition } from './definition.ts';

export const handler = endpoint(definition, {
  handle: async ({ body, authorization }) => {
    const { passwordLogin, oidc } = signInSettings();
    const form = signInForm(body, passwordLogin, oidc?.issuer);
    if (form.kind === 'lti') return { token: await issueLaunchSession(form.code) };
    if (form.kind === 'oidc') return { token: await issueTokenForIdToken(form.idToken, form.nonce) };
    return { token: await issueToken(form.userId, form.password, authorization) };
  },
});
