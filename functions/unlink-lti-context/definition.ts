import { route } from '#shared/http/routes.ts';
import { required, text } from '#shared/http/fields.ts';
import { unlinkFieldsMissing } from '#shared/lti/failures.ts';

export const definition = route({
  name: 'unlink-lti-context',
  method: 'DELETE',
  path: '/api/{semester}/{course}/lti/link',
  access: 'course:instructor',
  summary:
    'Unlink an LMS course (registration_id and context_id, as GET …/lti/link names them) from this course; audited. Its launches are then told it is not linked; members stay.',
  // The course's links are listed; the link and the course's entry are removed (only while linked to this course) with the audit entry.
  data: { lti: ['Query', 'DeleteItem'], courses: ['UpdateItem'], audit: ['PutItem'] },
  input: () => ({
    query: {
      registration_id: required(text(64, { description: 'The registration the LMS course is of.' }), unlinkFieldsMissing),
      context_id: required(text(255, { description: "The LMS course's context id." }), unlinkFieldsMissing),
    },
  }),
});
