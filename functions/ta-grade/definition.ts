import { route } from '#shared/http/routes.ts';

export const definition = route({
  name: 'ta-grade',
  method: 'GET',
  path: '/api/{semester}/{course}/gradeable/{gradeable_id}/grading/{user_id}',
  access: 'course:staff',
  summary: "A student's (or their team's) TA grade, component by component, with its audit trail. Limited access graders: their sections.",
  data: {
    gradeables: ['BatchGetItem'],
    enrollments: ['BatchGetItem'],
    teams: ['BatchGetItem'],
    submissions: ['BatchGetItem'],
    gradeAudit: ['Query'],
  },
});
