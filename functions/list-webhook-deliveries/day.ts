/** The deployed day's steps of `list-webhook-deliveries` (test/deployed/day.ts says how the day runs them). */
import { expect } from 'vitest';
import {
  call,
  CAN_BUILD,
  COURSE,
  fail,
  handedOn,
  signedDeliveries,
  stack,
  TERM,
  webhook,
  webhookEvent,
  type RouteDay,
} from '../../test/deployed/day.ts';

export const day: RouteDay = [
  {
    title: "the webhook's deliveries are each listed as delivered once, a state and a page at a time",
    phase: 'deliveries listed',
    timeoutMs: 90_000,
    run: async () => {
      if (!webhook) return;
      await webhookEvent('summaries.generated', 'summaries.generated', { term: TERM, course: COURSE });
      await stack!.queues.idle(20_000).catch((error: Error) => fail('webhook queue', error.message));
      const path = `/api/${TERM}/${COURSE}/webhooks/${webhook.id}/deliveries`;
      const listed = await call('GET', path, { as: 'prof' });
      const deliveries = (listed.json?.data ?? []) as { id: string; event: string; state: string; attempts: { status: number | null }[] }[];
      handedOn.deliveries = deliveries;
      const received = new Set(signedDeliveries('deliveries').map(({ request }) => String(request.headers['webhook-id'])));
      const count = (event: string) => deliveries.filter((delivery) => delivery.event === event).length;
      // Two graded versions (graded again by the regrade: four), one failed, and the summaries
      // generated on request and by the schedule.
      expect(
        { graded: count('submission.graded'), failed: count('submission.failed'), summaries: count('summaries.generated') },
        'the deliveries of the day',
      ).toEqual({
        graded: CAN_BUILD ? 4 : 0,
        failed: 1,
        summaries: 2,
      });
      for (const delivery of deliveries) {
        if (
          delivery.state !== 'delivered' ||
          delivery.attempts.map((attempt) => attempt.status).join() !== '200' ||
          !received.has(delivery.id)
        ) {
          fail('list deliveries', `not delivered once with 200 to the receiver: ${JSON.stringify(delivery).slice(0, 500)}`);
        }
      }
      const delivered = await call('GET', `${path}?state=delivered`, { as: 'prof' });
      if ((delivered.json?.data as unknown[] | undefined)?.length !== deliveries.length)
        fail('list delivered deliveries', delivered.text.slice(0, 500));
      // Paged: one delivery a page, the next named by the Link header, through the API's stage.
      const first = await call('GET', `${path}?page_size=1`, { as: 'prof' });
      const next = /^<([^>]+)>; rel="next"$/.exec(first.headers.get('link') ?? '')?.[1];
      const second = next ? await call('GET', next, { as: 'prof' }) : undefined;
      if (first.json?.data?.[0]?.id !== deliveries[0]?.id || (deliveries.length > 1 && second?.json?.data?.[0]?.id !== deliveries[1]?.id))
        fail('list deliveries a page at a time', `${first.headers.get('link')} ${first.text.slice(0, 300)} ${second?.text.slice(0, 300)}`);
    },
  },
];
