/** What the cross-cutting tests expect of `submit-files` (test/hardening/test-rows.ts says which tests, and how). */
import { NOT_SAME_USER, fileMembers } from '../../test/hardening/authorization-matrix.ts';
import { COURSE_CHECK, STANDING_QUERIES, SUBMISSION_READS } from '../../test/infra/expected-policies.ts';
import type { WriteRouteRows } from '../../test/hardening/test-rows.ts';

export const rows: WriteRouteRows = {
  policy: [
    ...COURSE_CHECK,
    ...SUBMISSION_READS,
    'dynamodb:BatchGetItem lateDays',
    // The representation (Prefer: return=representation) reads the student's standing.
    ...STANDING_QUERIES,
    'dynamodb:BatchGetItem idempotency',
    'dynamodb:PutItem idempotency',
    'dynamodb:ConditionCheckItem gradeables',
    'dynamodb:UpdateItem submissions',
    'dynamodb:UpdateItem teams',
    'dynamodb:PutItem jobs',
    'dynamodb:UpdateItem jobs',
    'sqs:SendMessage gradingQueue',
    // Confirmed uploads read (a zip read through), copied into the version and deleted; a version's
    // files written, and deleted again when no version records them. Nothing of versions is read.
    ...['DeleteObject', 'GetObject'].map((action) => `s3:${action} submissionsBucket/uploads/*`),
    ...['DeleteObject', 'PutObject'].map((action) => `s3:${action} submissionsBucket/versions/*`),
    's3:ListBucket submissionsBucket',
  ],
  // The open gradeable is a VCS one: whoever may submit gets the files routes' refusal of it;
  // test/http/submit-files.test.ts covers files gradeables' object-level rules.
  authorization: [
    {
      variation: 'own submission',
      request: (world) => ({ params: { gradeable_id: world.openGradeable }, body: { upload_ids: ['x'] } }),
      expect: fileMembers(),
    },
    {
      variation: 'for student2 (user_id)',
      request: (world) => ({
        params: { gradeable_id: world.openGradeable },
        body: { upload_ids: ['x'], user_id: world.userIds.student2 },
      }),
      expect: { ...fileMembers(), student: NOT_SAME_USER, mentor: NOT_SAME_USER },
    },
  ],
  fuzzedPath: (world) => ({ gradeable_id: world.filesGradeable }),
  validBody: (world) => ({ upload_ids: [world.uploadId], user_id: world.userIds.student }),
};
