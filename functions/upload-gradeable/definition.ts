import { route } from '#shared/http/routes.ts';

export const definition = route({
  name: 'upload-gradeable',
  method: 'POST',
  path: '/api/{semester}/{course}/upload',
  access: 'course:instructor',
  summary: 'Create a gradeable from gradeable JSON; data is its id. Every problem is listed in data.',
  data: { gradeables: ['PutItem'], courses: ['ConditionCheckItem'] },
  input: () => ({ document: true }),
});
