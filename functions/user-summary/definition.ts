import { route } from '#shared/http/routes.ts';

export const definition = route({
  name: 'user-summary',
  method: 'GET',
  path: '/api/{semester}/{course}/reports/summaries/{user_id}',
  aliases: ['/api/courses/{semester}/{course}/reports/summaries/{user_id}'],
  access: 'course:member',
  summary: "One user's grade summary: instructors any, students their own.",
  data: { summaries: ['BatchGetItem'] },
});
