import { route } from '#shared/http/routes.ts';

export const definition = route({
  name: 'course-config',
  method: 'GET',
  path: '/api/courses/{semester}/{course}/config',
  access: 'course:instructor',
  summary: "The course's settings: course_name, default_student_late_days, timezone, course_status, archived, access_group.",
});
