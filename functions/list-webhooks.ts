import { endpoint } from '#shared/http/endpoint.ts';
import { listWebhooks } from '#shared/webhooks/manage.ts';

export const handler = endpoint('list-webhooks', {
  handle: ({ course }) => listWebhooks(course),
});
