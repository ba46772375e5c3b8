import { endpoint } from '#shared/http/endpoint.ts';
import { removeWebhook } from '#shared/webhooks/manage.ts';
import { definition } from './definition.ts';

export const handler = endpoint(definition, {
  handle: ({ course, params }) => removeWebhook(course, params.webhook_id),
});
