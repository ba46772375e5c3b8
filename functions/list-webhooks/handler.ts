import { endpoint } from '#shared/http/endpoint.ts';
import { listWebhooks } from '#shared/webhooks/manage.ts';
import { definition } from './definition.ts';

export const handler = endpoint(definition, {
  handle: ({ course }) => listWebhooks(course),
});
