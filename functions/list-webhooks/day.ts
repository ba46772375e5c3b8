/** The deployed day's steps of `list-webhooks` (test/deployed/day.ts says how the day runs them). */
import { call, COURSE, fail, TERM, webhook, type RouteDay } from '../../test/deployed/day.ts';

export const day: RouteDay = [
  {
    title: 'lists the webhook without its secret',
    phase: 'webhook listed',
    run: async () => {
      const listed = await call('GET', `/api/${TERM}/${COURSE}/webhooks`, { as: 'prof' });
      if (webhook && (!listed.text.includes(webhook.id) || listed.text.includes(webhook.secret)))
        fail('list webhooks', listed.text.slice(0, 500));
    },
  },
];
