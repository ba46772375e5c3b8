/** What the cross-cutting tests expect of `save-ta-grade` (test/hardening/test-rows.ts says which tests, and how). */
import { gradingCases } from '../../test/hardening/authorization-matrix.ts';
import { COURSE_CHECK } from '../../test/infra/expected-policies.ts';
import type { WriteRouteRows } from '../../test/hardening/test-rows.ts';

export const rows: WriteRouteRows = {
  policy: [
    ...COURSE_CHECK,
    ...['gradeables', 'teams', 'submissions'].map((table) => `dynamodb:BatchGetItem ${table}`),
    // A first grade checks its gradeable's gate.
    'dynamodb:ConditionCheckItem gradeables',
    'dynamodb:UpdateItem submissions',
    'dynamodb:PutItem gradeAudit',
    // The grade for linked LMS courses, written with it.
    'dynamodb:PutItem webhookOutbox',
  ],
  authorization: gradingCases({ component_id: 0, custom_points: 1 }),
  validBody: () => ({ component_id: 0, mark_ids: [0], custom_points: 1, custom_message: 'Fuzz' }),
};
