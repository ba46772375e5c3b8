import * as z from 'zod/mini';
import { route } from '#shared/http/routes.ts';
import { idempotencyKeyHeader, submissionPreferHeader, submittedFor } from '#shared/http/parameters.ts';
import { attachments, list } from '#shared/http/fields.ts';
import { SUBMISSION_SETTINGS } from '#shared/config.ts';

/** Files sent in the body itself: what API Gateway and Lambda carry once a binary body is base64-encoded. */
export const MULTIPART_BYTES = 4 * 1024 * 1024;
/** The most files one request sends. */
export const MAX_FILES_SENT = 200;
/**
 * The most upload ids one request confirms: each is consumed in the version's own transaction, beside
 * the version's own items and a copy per team member (versionClaimsBudget: a team's version confirms fewer).
 */
export const MAX_UPLOADS_CONFIRMED = 64;

export const definition = route({
  name: 'submit-files',
  method: 'POST',
  path: '/api/{semester}/{course}/gradeable/{gradeable_id}/files',
  access: 'course:member',
  summary:
    'Submit files to an Electronic File gradeable without version control: `files` in a multipart body (up to 4 MiB in all), or `upload_ids` of presigned uploads (POST …/files/uploads). A new version, queued for grading. Honours Idempotency-Key.',
  // Bounded as every submission is.
  settings: SUBMISSION_SETTINGS,
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
  // Uploads are read, copied into the version and deleted; a missing upload is found missing (ListBucket), not denied.
  // A submission that created no version deletes the files it stored.
  objects: { uploads: ['GetObject', 'DeleteObject', 'ListBucket'], versions: ['PutObject', 'DeleteObject'] },
  queue: 'send',
  bodyBytes: MULTIPART_BYTES,
  input: () => ({
    headers: { ...idempotencyKeyHeader(), ...submissionPreferHeader() },
    body: {
      user_id: submittedFor(),
      files: z.optional(
        attachments({
          description: 'The files (multipart/form-data, the field repeated); a .zip is unpacked into the version as it is graded.',
          maxItems: MAX_FILES_SENT,
        }),
      ),
      upload_ids: z.optional(
        list({
          description: 'The `upload_id`s of presigned uploads to submit (JSON).',
          items: 'upload ids',
          maxItems: MAX_UPLOADS_CONFIRMED,
        }),
      ),
    },
  }),
});
