/** What the cross-cutting tests expect of `lti-launch` (test/hardening/test-rows.ts says which tests, and how). */
import { everyone, fail } from '../../test/hardening/authorization-matrix.ts';
import type { WriteRouteRows } from '../../test/hardening/test-rows.ts';

const unknownState = { id_token: 'not.a.token', state: 'a-state-nobody-issued' };

export const rows: WriteRouteRows = {
  // The state, registration, binding, link and the user, membership, course, term and gradeables read; one transaction
  // consumes the state and nonce, binds the person, records a deployment, creates an account or enrols a member, stores the code.
  policy: [
    'dynamodb:BatchGetItem lti',
    'dynamodb:GetItem lti',
    'dynamodb:DeleteItem lti',
    'dynamodb:PutItem lti',
    'dynamodb:UpdateItem lti',
    'dynamodb:BatchGetItem users',
    'dynamodb:PutItem users',
    'dynamodb:ConditionCheckItem users',
    'dynamodb:UpdateItem users',
    'dynamodb:BatchGetItem enrollments',
    'dynamodb:PutItem enrollments',
    'dynamodb:UpdateItem enrollments',
    'dynamodb:BatchGetItem courses',
    'dynamodb:BatchGetItem terms',
    'dynamodb:BatchGetItem gradeables',
    'dynamodb:PutItem accessGroups',
    'dynamodb:DeleteItem accessGroups',
    'dynamodb:PutItem audit',
  ],
  authorization: [
    {
      variation: 'a state no login issued',
      request: () => ({ body: unknownState, form: true }),
      expect: everyone(
        fail("This launch's state is unknown, used already or older than ten minutes: open the tool again from the LMS.", 400),
      ),
    },
  ],
  validBody: () => ({ ...unknownState }),
};
