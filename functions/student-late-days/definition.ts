import { route } from '#shared/http/routes.ts';

export const definition = route({
  name: 'student-late-days',
  method: 'GET',
  path: '/api/{semester}/{course}/late-days/{user_id}',
  access: 'course:member',
  summary:
    "A student's late days: the course's budget, their grants, the budget left, and each gradeable's allowance, extension, days late and charged, and status. Students their own; limited access graders their sections.",
  data: {
    enrollments: ['BatchGetItem'],
    lateDays: ['BatchGetItem'],
    gradeables: ['Query'],
    submissions: ['Query byStudent'],
    teams: ['Query byStudent'],
  },
});
