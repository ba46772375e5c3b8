/** Webhooks' fails (declared once: the code throws them, the API contract lists them). */
import { ECHOED_LENGTH, failure } from '#shared/errors.ts';

export const needsUrlAndEvents = /* @__PURE__ */ failure('invalid', 'A webhook needs a url and events.');
export const urlNotAbsolute = /* @__PURE__ */ failure('invalid', 'The url must be an absolute https:// URL.');
export const urlWithCredentials = /* @__PURE__ */ failure('invalid', 'The url may not contain a user name or password.');
export const unknownEvent = /* @__PURE__ */ failure('invalid', 'Unknown event {event}. Events: {events}.', { event: ECHOED_LENGTH });
export const tooManyWebhooks = /* @__PURE__ */ failure('conflict', 'A course can have at most {max} webhooks.');
export const webhookNotFound = /* @__PURE__ */ failure('not-found', 'No webhook {webhook_id} in this course.', {
  webhook_id: ECHOED_LENGTH,
});
export const deliveryNotFound = /* @__PURE__ */ failure('not-found', 'No delivery {delivery_id} of this webhook.', {
  delivery_id: ECHOED_LENGTH,
});
export const badDeliveryState = /* @__PURE__ */ failure('invalid', 'The state must be pending, delivered or failed.');
export const stillAttempting = /* @__PURE__ */ failure(
  'conflict',
  'This delivery is still being attempted; it can be replayed once it is delivered or has failed.',
);
