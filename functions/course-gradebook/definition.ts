import { route } from '#shared/http/routes.ts';
import { COURSE_GRADEBOOK_PAGE } from '#shared/gradebook/page.ts';
import { paging } from '#shared/http/parameters.ts';

export const definition = route({
  name: 'course-gradebook',
  method: 'GET',
  path: '/api/{semester}/{course}/gradebook',
  access: 'course:staff',
  summary:
    "The course's gradebook: a row per student (names, sections, late days used and left) with each gradeable released to staff, in the course's order: score, most points, days late and status; by section then user, paged with a cursor. Limited access graders: their sections.",
  data: {
    gradeables: ['Query'],
    enrollments: ['Query bySection', 'BatchGetItem'],
    users: ['BatchGetItem'],
    submissions: ['BatchGetItem'],
    teams: ['BatchGetItem'],
    lateDays: ['BatchGetItem'],
  },
  input: () => ({ query: paging('Students', COURSE_GRADEBOOK_PAGE) }),
});
