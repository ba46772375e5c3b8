import { route } from '#shared/http/routes.ts';
import { paging } from '#shared/http/parameters.ts';

export const definition = route({
  name: 'course-graders',
  method: 'GET',
  path: '/api/{semester}/{course}/graders',
  aliases: ['/api/courses/{semester}/{course}/graders'],
  access: 'course:instructor-or-group-staff',
  summary:
    'The instructors and graders of the course, with the sections they grade: whole by default, paged when asked, as the users list.',
  data: { enrollments: ['Query'], users: ['BatchGetItem'] },
  input: () => ({ query: paging('Graders', 'whole') }),
});
