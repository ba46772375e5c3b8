/** What the cross-cutting tests expect of `lti-register` (test/hardening/test-rows.ts says which tests, and how). */
import { everyone, fail } from '../../test/hardening/authorization-matrix.ts';
import type { ReadRouteRows } from '../../test/hardening/test-rows.ts';

export const rows: ReadRouteRows = {
  policy: ['dynamodb:GetItem lti', 'dynamodb:UpdateItem lti', 'dynamodb:DeleteItem lti', 'dynamodb:PutItem lti'],
  authorization: [
    {
      // No invitation: refused (an HTML page naming it), whoever the browser is.
      variation: 'an invitation nobody issued',
      request: () => ({ query: { invitation: 'made-up', openid_configuration: 'https://203.0.113.10/.well-known/openid-configuration' } }),
      expect: everyone(fail('This registration invitation is unknown or was used already; ask a superuser for a new one.', 404)),
    },
  ],
};
