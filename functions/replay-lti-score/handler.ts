import { endpoint } from '#shared/http/endpoint.ts';
import { scoreDeliveryNotFound } from '#shared/lti/failures.ts';
import { replayScoreDelivery } from '#shared/lti/score-deliveries.ts';
import { definition } from './definition.ts';

export const handler = endpoint(definition, {
  malformed: { score_delivery_id: (deliveryId) => scoreDeliveryNotFound({ delivery_id: deliveryId }) },
  handle: ({ course, params }) => replayScoreDelivery(course, params.score_delivery_id),
});
