import { endpoint } from '#shared/http/endpoint.ts';
import { registerWebhook } from '#shared/webhooks/manage.ts';

export const handler = endpoint('create-webhook', {
  handle: ({ course, caller, body }) => registerWebhook(course, caller.userId, body),
});
