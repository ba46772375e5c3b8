import { route } from '#shared/http/routes.ts';

export const definition = route({
  name: 'delete-webhook',
  method: 'DELETE',
  path: '/api/{semester}/{course}/webhooks/{webhook_id}',
  access: 'course:instructor',
  summary: 'Remove a webhook and its secret; nothing more is delivered to it.',
  // The course's webhook count is lowered with each webhook removed (or checked not yet kept).
  data: { webhooks: ['DeleteItem', 'UpdateItem', 'ConditionCheckItem'], webhookSecrets: ['DeleteItem'] },
});
