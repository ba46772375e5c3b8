/** What `create-webhook` answers: its success `data` and its own fails (shared/http/contract.ts says how they are used). */
import * as z from 'zod';
import { components } from '#shared/http/answers.ts';
import { fail, type RouteContract } from '#shared/http/contract.ts';
import { needsUrlAndEvents, tooManyWebhooks, unknownEvent, urlNotAbsolute, urlWithCredentials } from '#shared/webhooks/failures.ts';

const { Webhook } = components;

export const contract: RouteContract = {
  tag: 'Webhooks',
  data: Webhook.extend({
    secret: z
      .string()
      .regex(/^whsec_/)
      .describe(
        'The signing secret (Standard Webhooks `whsec_` format), shown only in this answer: keep it to verify the `webhook-signature` header.',
      ),
  }),
  fails: [
    fail(needsUrlAndEvents),
    fail(urlNotAbsolute),
    fail(urlWithCredentials),
    { status: 400, message: 'The host {host} could not be found.' },
    {
      status: 400,
      message: "The url's host has the address {address}, which is {a kind of address}; webhooks are not delivered to such addresses.",
    },
    fail(unknownEvent),
    fail(tooManyWebhooks),
  ],
};
