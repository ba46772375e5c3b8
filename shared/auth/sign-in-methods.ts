import { signInSettings, type PasswordLoginMode } from '#shared/config.ts';
import { discoveryUrl } from './oidc-rules.ts';

/** What a client asks the identity provider for: an ID token naming the user, their names and e-mail address. */
export const OIDC_SCOPES = ['openid', 'profile', 'email'] as const;

export interface SignInMethods {
  readonly methods: ('password' | 'oidc')[];
  readonly password_login: PasswordLoginMode;
  readonly oidc: {
    readonly issuer: string;
    readonly discovery_url: string;
    readonly client_id: string;
    readonly scopes: string[];
    readonly user_id_claim: string;
  } | null;
}

/** GET /api/auth: the ways in, as the deployment's settings say (nothing secret: all of it is the provider's public metadata). */
export function signInMethods(): SignInMethods {
  const { passwordLogin, oidc } = signInSettings();
  return {
    methods: [...(passwordLogin === 'off' ? [] : (['password'] as const)), ...(oidc ? (['oidc'] as const) : [])],
    password_login: passwordLogin,
    oidc: oidc
      ? {
          issuer: oidc.issuer,
          discovery_url: discoveryUrl(oidc.issuer).href,
          client_id: oidc.clientId,
          scopes: [...OIDC_SCOPES],
          user_id_claim: oidc.userIdClaim,
        }
      : null,
  };
}
