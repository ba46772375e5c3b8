import { endpoint } from '#shared/http/endpoint.ts';
import { removeWebhook } from '#shared/webhooks/manage.ts';

export const handler = endpoint('delete-webhook', {
  handle: ({ course, params }) => removeWebhook(course, params.webhook_id),
});
