import { courseChangeData, route } from '#shared/http/routes.ts';

export const definition = route({
  name: 'unarchive-course',
  method: 'POST',
  path: '/api/courses/{semester}/{course}/config/unarchive',
  access: 'course:instructor-or-superuser',
  summary: 'Unarchive the course (instructors with faculty access level, and superusers).',
  data: courseChangeData(),
});
