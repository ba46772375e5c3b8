import { courseChangeData, route } from '#shared/http/routes.ts';

export const definition = route({
  name: 'archive-course',
  method: 'POST',
  path: '/api/courses/{semester}/{course}/config/archive',
  access: 'course:instructor-or-superuser',
  summary:
    "Archive the course (instructors with faculty access level, and superusers): it leaves its students' course lists and its access group's reading.",
  data: courseChangeData(),
});
