/** What the cross-cutting tests expect of `gradeable-values` (test/hardening/test-rows.ts says which tests, and how). */
import { submissionReadCases } from '../../test/hardening/authorization-matrix.ts';
import { COURSE_CHECK, STANDING_READS, SUBMISSION_READS } from '../../test/infra/expected-policies.ts';
import type { ReadRouteRows } from '../../test/hardening/test-rows.ts';

export const rows: ReadRouteRows = {
  policy: [...COURSE_CHECK, ...SUBMISSION_READS, ...STANDING_READS],
  authorization: submissionReadCases(),
};
