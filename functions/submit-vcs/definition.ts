import * as z from 'zod/mini';
import { route } from '#shared/http/routes.ts';
import { IDEMPOTENCY_KEY } from '#shared/ids.ts';
import { documented, flag, scalar, text } from '#shared/http/fields.ts';

/** Makes a submission safe to retry; read by the token check's reads (raw, lower case) and by the handler (parsed). */
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';

export const definition = route({
  name: 'submit-vcs',
  method: 'POST',
  path: '/api/{semester}/{course}/gradeable/{gradeable_id}/upload',
  aliases: ['/api/{semester}/{course}/gradeable/{gradeable_id}/grade'],
  access: 'course:member',
  summary:
    'Submit a version-control gradeable (user_id, vcs_checkout=true, git_repo_id): a new version, queued for grading. Honours Idempotency-Key.',
  data: {
    gradeables: ['BatchGetItem', 'ConditionCheckItem'],
    enrollments: ['BatchGetItem'],
    teams: ['BatchGetItem', 'UpdateItem'],
    submissions: ['BatchGetItem', 'UpdateItem'],
    jobs: ['BatchGetItem', 'UpdateItem', 'PutItem'],
    idempotency: ['BatchGetItem', 'PutItem'],
    lateDays: ['BatchGetItem'],
  },
  queue: 'send',
  input: () => ({
    headers: {
      [IDEMPOTENCY_KEY_HEADER]: z.optional(
        documented(z.string(), {
          description: 'Makes retries safe: a repeat within 24 hours gets the first answer and creates nothing.',
          pattern: IDEMPOTENCY_KEY.source,
        }),
      ),
    },
    body: {
      user_id: z.optional(text(256, { description: 'Instructors and full access graders: submit for this student.' })),
      vcs_checkout: flag({ description: 'Must be true.' }, { lenient: true }),
      git_repo_id: scalar({ description: 'Any non-empty value (the repository comes from the gradeable’s VCS settings).' }),
    },
  }),
});
