/** What the cross-cutting tests expect of `not-found` (test/hardening/test-rows.ts says which tests, and how). */
import type { WorkerRows } from '../../test/hardening/test-rows.ts';

export const rows: WorkerRows = {
  policy: [],
};
