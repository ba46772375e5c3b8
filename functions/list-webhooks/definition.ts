import { route } from '#shared/http/routes.ts';

export const definition = route({
  name: 'list-webhooks',
  method: 'GET',
  path: '/api/{semester}/{course}/webhooks',
  access: 'course:instructor',
  summary: "The course's webhooks (without their secrets).",
  data: { webhooks: ['Query'] },
});
