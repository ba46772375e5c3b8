import { route } from '#shared/http/routes.ts';
import { idempotencyKeyHeader, submissionPreferHeader, submittedFor } from '#shared/http/parameters.ts';
import { flag, scalar } from '#shared/http/fields.ts';
import { SUBMISSION_SETTINGS } from '#shared/config.ts';

export const definition = route({
  name: 'submit-vcs',
  method: 'POST',
  path: '/api/{semester}/{course}/gradeable/{gradeable_id}/upload',
  aliases: ['/api/{semester}/{course}/gradeable/{gradeable_id}/grade'],
  access: 'course:member',
  summary:
    'Submit a version-control gradeable (user_id, vcs_checkout=true, git_repo_id): a new version, queued for grading. Honours Idempotency-Key.',
  // Bounded as every submission is; reads the repository's head through the git host guard.
  settings: [...SUBMISSION_SETTINGS, 'ALLOWED_GIT_HOSTS'],
  // With Prefer: return=representation, the student's standing is read as values reads it (the Queries).
  data: {
    gradeables: ['BatchGetItem', 'ConditionCheckItem', 'Query'],
    enrollments: ['BatchGetItem'],
    teams: ['BatchGetItem', 'UpdateItem', 'Query byStudent'],
    submissions: ['BatchGetItem', 'UpdateItem', 'Query byStudent'],
    jobs: ['BatchGetItem', 'UpdateItem', 'PutItem'],
    idempotency: ['BatchGetItem', 'PutItem'],
    lateDays: ['BatchGetItem'],
  },
  queue: 'send',
  input: () => ({
    headers: { ...idempotencyKeyHeader(), ...submissionPreferHeader() },
    body: {
      user_id: submittedFor(),
      vcs_checkout: flag({ description: 'Must be true.' }, { lenient: true }),
      git_repo_id: scalar({ description: 'Any non-empty value (the repository comes from the gradeable’s VCS settings).' }),
    },
  }),
});
