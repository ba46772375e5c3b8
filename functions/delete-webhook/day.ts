/** The deployed day's steps of `delete-webhook` (test/deployed/day.ts says how the day runs them). */
import { call, collectProblems, COURSE, fail, stack, TERM, webhook, type RouteDay } from '../../test/deployed/day.ts';

export const day: RouteDay = [
  {
    title: 'the webhook is removed, and no longer listed',
    phase: 'webhook deleted',
    run: async () => {
      if (!webhook) return;
      await stack!.queues.idle(20_000).catch((error: Error) => fail('webhook queue', error.message));
      await call('DELETE', `/api/${TERM}/${COURSE}/webhooks/${webhook.id}`, { as: 'prof' });
      const after = await call('GET', `/api/${TERM}/${COURSE}/webhooks`, { as: 'prof' });
      if (after.text.includes(webhook.id)) fail('delete webhook', `still listed: ${after.text.slice(0, 300)}`);
      collectProblems('webhooks');
    },
  },
];
