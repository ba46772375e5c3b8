/** What `auth-methods` answers: its success `data` and its own fails (shared/http/contract.ts says how they are used). */
import * as z from 'zod';
import { object, string } from '#shared/http/answers.ts';
import type { RouteContract } from '#shared/http/contract.ts';

export const contract: RouteContract = {
  tag: 'Tokens',
  data: object({
    methods: z.array(z.enum(['password', 'oidc'])).describe('The ways in `POST /api/token` takes here (password: for someone).'),
    password_login: z.enum(['on', 'superusers', 'off']).describe('Who may log in with a password: everyone, superusers only, nobody.'),
    oidc: object({
      issuer: string.describe('The OpenID Connect issuer: run the authorization code flow with PKCE, or the device flow, against it.'),
      discovery_url: string.describe("The issuer's discovery document (its endpoints, the device flow's included)."),
      client_id: string.describe('The client id to ask the issuer for an ID token for.'),
      scopes: z.array(string).describe('The scopes to ask for.'),
      user_id_claim: string.describe("The ID token's claim that names the user."),
    })
      .nullable()
      .describe('null when the deployment signs nobody in through an identity provider.'),
  }),
  fails: [],
};
