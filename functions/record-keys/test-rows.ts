/** What the cross-cutting tests expect of `record-keys` (test/hardening/test-rows.ts says which tests, and how). */
import { A, everyone } from '../../test/hardening/authorization-matrix.ts';
import type { ReadRouteRows } from '../../test/hardening/test-rows.ts';

export const rows: ReadRouteRows = {
  // The record keys' secret, whose public halves it publishes.
  policy: ['secretsmanager:GetSecretValue recordKeys'],
  authorization: [{ variation: 'the key set', request: () => ({}), expect: everyone(A) }],
};
