/** The deployed day's steps of `replay-webhook-delivery` (test/deployed/day.ts says how the day runs them). */
import { call, COURSE, fail, handedOn, receiver, signedDeliveries, TERM, webhook, type RouteDay } from '../../test/deployed/day.ts';

export const day: RouteDay = [
  {
    title: 'a delivery replayed reaches the receiver again',
    phase: 'delivery replayed',
    run: async () => {
      if (!webhook) return;
      const deliveries = handedOn.deliveries ?? [];
      const replayed = deliveries.find((delivery) => delivery.event === 'submission.graded') ?? deliveries[0];
      if (replayed) {
        const before = receiver.received.length;
        await call('POST', `/api/${TERM}/${COURSE}/webhooks/${webhook.id}/deliveries/${replayed.id}/replay`, { as: 'prof' });
        const deadline = Date.now() + 20_000;
        while (!receiver.received.slice(before).some((request) => request.headers['webhook-id'] === replayed.id) && Date.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        if (!receiver.received.slice(before).some((request) => request.headers['webhook-id'] === replayed.id))
          fail('replay', `the replayed delivery ${replayed.id} did not reach the receiver`);
        signedDeliveries('replay');
      }
    },
  },
];
