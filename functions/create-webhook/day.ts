/** The deployed day's steps of `create-webhook` (test/deployed/day.ts says how the day runs them). */
import { call, COURSE, fail, HOOK_PATH, receiver, registered, TERM, type RouteDay } from '../../test/deployed/day.ts';

export const day: RouteDay = [
  {
    title: 'the instructor registers a webhook receiver (a loopback host the deployment allows)',
    phase: 'webhook registered',
    run: async () => {
      const answer = await call('POST', `/api/${TERM}/${COURSE}/webhooks`, {
        as: 'prof',
        json: {
          url: `${receiver.url}${HOOK_PATH}`,
          events: ['submission.graded', 'submission.failed', 'summaries.generated', 'inquiry.opened', 'inquiry.resolved'],
          description: 'the day',
        },
      });
      const data = answer.json?.data as { id?: string; secret?: string } | undefined;
      if (data?.id && data.secret?.startsWith('whsec_')) registered({ id: data.id, secret: data.secret });
      else fail('register a webhook', `no id and secret: ${answer.text.slice(0, 500)}`);
    },
  },
];
