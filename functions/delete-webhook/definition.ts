import { route } from '#shared/http/routes.ts';

export const definition = route({
  name: 'delete-webhook',
  method: 'DELETE',
  path: '/api/{semester}/{course}/webhooks/{webhook_id}',
  access: 'course:instructor',
  summary: 'Remove a webhook and its secret; nothing more is delivered to it.',
  data: { webhooks: ['DeleteItem'], webhookSecrets: ['DeleteItem'] },
});
