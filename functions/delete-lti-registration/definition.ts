import { route } from '#shared/http/routes.ts';

export const definition = route({
  name: 'delete-lti-registration',
  method: 'DELETE',
  path: '/api/lti/registrations/{registration_id}',
  access: 'superuser',
  summary: 'Remove an LTI platform: its launches are refused from then on.',
  data: { lti: ['DeleteItem'] },
});
