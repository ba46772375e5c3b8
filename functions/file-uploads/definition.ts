import * as z from 'zod/mini';
import { route } from '#shared/http/routes.ts';
import { declaredFiles } from '#shared/http/fields.ts';

export const definition = route({
  name: 'file-uploads',
  method: 'POST',
  path: '/api/{semester}/{course}/gradeable/{gradeable_id}/files/uploads',
  access: 'course:member',
  summary:
    'Declare files to upload straight to storage (JSON `files`: `[{"name","size"}]`): per file a presigned POST (`url`, form `fields`, then the file as the field `file`) taking that object only, up to its size, for 15 minutes; then submit the `upload_id`s with POST …/files.',
  data: { gradeables: ['BatchGetItem'] },
  objects: { uploads: ['PutObject'] },
  input: () => ({
    body: {
      // As many as one confirmation takes (MAX_UPLOADS_CONFIRMED of submit-files).
      files: z.optional(
        declaredFiles({ description: 'The files to upload: name and size in bytes.', maxItems: 64, maxSize: 10 * 1024 ** 3 }),
      ),
    },
  }),
});
