/** What the cross-cutting tests expect of `lti-login-form` (test/hardening/test-rows.ts says which tests, and how). */
import { everyone, fail } from '../../test/hardening/authorization-matrix.ts';
import type { WriteRouteRows } from '../../test/hardening/test-rows.ts';

/** A login from a platform nobody registered: refused (an HTML page naming it), whoever the browser is. */
const unknownPlatform = {
  iss: 'https://lms.matrix.example.edu',
  client_id: 'matrix',
  login_hint: 'someone',
  target_link_uri: 'http://localhost/api/lti/launch',
};

export const rows: WriteRouteRows = {
  policy: ['dynamodb:GetItem lti', 'dynamodb:Query lti', 'dynamodb:PutItem lti'],
  authorization: [
    {
      variation: 'a platform not registered',
      request: () => ({ body: unknownPlatform, form: true }),
      expect: everyone(fail('No LTI registration for the issuer https://lms.matrix.example.edu with client id matrix.', 404)),
    },
  ],
  validBody: () => ({ ...unknownPlatform }),
};
