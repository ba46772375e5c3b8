import { route } from '#shared/http/routes.ts';
import { required, text } from '#shared/http/fields.ts';
import { contentMissing } from '#shared/inquiries/failures.ts';
import { MAX_CONTENT_LENGTH } from '#shared/inquiries/limits.ts';

export const definition = route({
  name: 'post-to-inquiry',
  method: 'POST',
  path: '/api/{semester}/{course}/gradeable/{gradeable_id}/inquiries/{inquiry_id}/posts',
  access: 'course:member',
  summary:
    "Post to an open grade inquiry: its student (or a member of their team), or a grader who may grade them (limited access graders: the student's section). Kept in the course's audit trail.",
  data: {
    gradeables: ['BatchGetItem'],
    teams: ['BatchGetItem'],
    inquiries: ['BatchGetItem', 'UpdateItem'],
    audit: ['PutItem'],
  },
  input: () => ({
    body: {
      content: required(text(MAX_CONTENT_LENGTH, { description: `The post (at most ${MAX_CONTENT_LENGTH} characters).` }), contentMissing, {
        blankIsMissing: true,
      }),
    },
  }),
});
