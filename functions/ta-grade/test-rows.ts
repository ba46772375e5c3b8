/** What the cross-cutting tests expect of `ta-grade` (test/hardening/test-rows.ts says which tests, and how). */
import { gradingCases } from '../../test/hardening/authorization-matrix.ts';
import { COURSE_CHECK } from '../../test/infra/expected-policies.ts';
import type { ReadRouteRows } from '../../test/hardening/test-rows.ts';

export const rows: ReadRouteRows = {
  policy: [
    ...COURSE_CHECK,
    ...['gradeables', 'teams', 'submissions'].map((table) => `dynamodb:BatchGetItem ${table}`),
    'dynamodb:Query gradeAudit',
  ],
  authorization: gradingCases(),
};
