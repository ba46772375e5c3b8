import * as z from 'zod/mini';
import { route } from '#shared/http/routes.ts';
import { MAX_DESCRIPTION_LENGTH, MAX_URL_LENGTH, webhookEvents } from '#shared/webhooks/webhook.ts';
import { list, required, text } from '#shared/http/fields.ts';
import { needsUrlAndEvents } from '#shared/webhooks/failures.ts';

export const definition = route({
  name: 'create-webhook',
  method: 'POST',
  path: '/api/{semester}/{course}/webhooks',
  access: 'course:instructor',
  summary: 'Register a webhook (an HTTPS url and the events it receives); data holds its signing secret, shown this once.',
  // The course's webhook count is raised with each webhook (UpdateItem), within the limit.
  // Checks the url's host as delivery will.
  settings: ['WEBHOOK_ALLOWED_HOSTS'],
  data: { webhooks: ['Query', 'PutItem', 'UpdateItem'], webhookSecrets: ['PutItem'] },
  input: () => ({
    body: {
      // Either missing (a url of white space, or no events, too): the one message for both.
      url: required(
        text(MAX_URL_LENGTH, {
          description:
            'Where to POST the events: https, on a public address (private, loopback and link-local addresses, and plain http, only for the hosts the operator allows).',
          format: 'uri',
        }),
        needsUrlAndEvents,
        { blankIsMissing: true },
      ),
      events: required(
        list({
          description: `The events to receive: ${webhookEvents.join(', ')}.`,
          items: 'event names',
          values: webhookEvents,
          maxItems: 20,
        }),
        needsUrlAndEvents,
      ),
      description: z.optional(text(MAX_DESCRIPTION_LENGTH, { description: 'What the webhook is for.' })),
    },
  }),
});
