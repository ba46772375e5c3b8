/** What the cross-cutting tests expect of `file-uploads` (test/hardening/test-rows.ts says which tests, and how). */
import { fileMembers } from '../../test/hardening/authorization-matrix.ts';
import { COURSE_CHECK } from '../../test/infra/expected-policies.ts';
import type { WriteRouteRows } from '../../test/hardening/test-rows.ts';

export const rows: WriteRouteRows = {
  // Presigned POSTs are signed with the route's own credentials: it may put uploads, nothing else.
  policy: [...COURSE_CHECK, 'dynamodb:BatchGetItem gradeables', 's3:PutObject submissionsBucket/uploads/*'],
  authorization: [
    {
      variation: 'own uploads',
      request: (world) => ({ params: { gradeable_id: world.openGradeable }, body: { files: [{ name: 'a.c', size: 1 }] } }),
      expect: fileMembers(),
    },
  ],
  fuzzedPath: (world) => ({ gradeable_id: world.filesGradeable }),
  validBody: () => ({ files: [{ name: 'main.cpp', size: 100 }] }),
};
