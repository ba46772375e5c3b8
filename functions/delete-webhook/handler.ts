import { endpoint } from '#shared/http/endpoint.ts';
import { removeWebhook, webhookNotFound } from '#shared/webhooks/manage.ts';
import { definition } from './definition.ts';

export const handler = endpoint(definition, {
  malformed: { webhook_id: webhookNotFound },
  handle: ({ course, params }) => removeWebhook(course, params.webhook_id),
});
