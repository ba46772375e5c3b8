import { endpoint } from '#shared/http/endpoint.ts';
import { registerWebhook } from '#shared/webhooks/manage.ts';
import { definition } from './definition.ts';

export const handler = endpoint(definition, {
  handle: ({ course, caller, body }) => registerWebhook(course, caller.userId, body),
});
