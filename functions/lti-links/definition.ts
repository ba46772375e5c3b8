import { route } from '#shared/http/routes.ts';

export const definition = route({
  name: 'lti-links',
  method: 'GET',
  path: '/api/{semester}/{course}/lti/link',
  access: 'course:instructor',
  summary: "The LMS courses linked to this course. Each keeps the platform's roster and grade service endpoints its launch named.",
  data: { lti: ['Query'] },
});
