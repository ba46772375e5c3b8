/** What the cross-cutting tests expect of `submit-vcs` (test/hardening/test-rows.ts says which tests, and how). */
import { fail, NOT_SAME_USER, members, submission } from '../../test/hardening/authorization-matrix.ts';
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
    // A first submission checks its gradeable's gate.
    'dynamodb:ConditionCheckItem gradeables',
    'dynamodb:UpdateItem submissions',
    'dynamodb:UpdateItem teams',
    'dynamodb:PutItem jobs',
    'dynamodb:UpdateItem jobs',
    'sqs:SendMessage gradingQueue',
  ],
  authorization: [
    { variation: 'own submission', request: (world) => submission(world.openGradeable), expect: members },
    {
      variation: 'for student2 (user_id)',
      request: (world) => submission(world.openGradeable, { user_id: world.userIds.student2 }),
      expect: { ...members, student: NOT_SAME_USER, mentor: NOT_SAME_USER },
    },
    {
      variation: 'a gradeable not yet open for students',
      request: (world) => submission(world.futureGradeable),
      expect: {
        ...members,
        student: fail("Invalid gradeable id '{future}'", 404),
        mentor: fail("Invalid gradeable id '{future}'", 404),
      },
    },
  ],
  validBody: (world) => ({ vcs_checkout: true, git_repo_id: 'none', user_id: world.userIds.student }),
};
