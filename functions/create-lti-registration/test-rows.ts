/** What the cross-cutting tests expect of `create-lti-registration` (test/hardening/test-rows.ts says which tests, and how). */
import { superuserOnly } from '../../test/hardening/authorization-matrix.ts';
import { TOKEN_CHECK } from '../../test/infra/expected-policies.ts';
import type { WriteRouteRows } from '../../test/hardening/test-rows.ts';

/** A platform on a public address literal, so no name is looked up; a new issuer each time. */
const platform = (world: { readonly unique: (prefix: string) => string }) => ({
  issuer: `https://${world.unique('lms')}.example.edu`,
  client_id: 'matrix-client',
  auth_login_url: 'https://203.0.113.10/auth',
  auth_token_url: 'https://203.0.113.10/token',
  jwks_url: 'https://203.0.113.10/jwks',
});

export const rows: WriteRouteRows = {
  policy: [...TOKEN_CHECK, 'dynamodb:PutItem lti'],
  authorization: [{ variation: 'a new platform', request: (world) => ({ body: platform(world) }), expect: superuserOnly }],
  validBody: (world) => ({ ...platform(world), deployment_ids: ['d1'], user_id_claim: 'email', create_users: false, label: 'Fuzz LMS' }),
};
