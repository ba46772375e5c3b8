/** The deployed day's steps of `list-inquiries` (test/deployed/day.ts says how the day runs them). */
import { call, COURSE, fail, handedOn, TERM, type RouteDay } from '../../test/deployed/day.ts';

export const day: RouteDay = [
  {
    title: "a grader's queue of open grade inquiries lists the student's",
    phase: 'inquiries listed',
    run: async () => {
      const queue = await call('GET', `/api/${TERM}/${COURSE}/inquiries?status=open`, { as: 'ta' });
      if (queue.json && !queue.text.includes(handedOn.inquiryId ?? '(none)')) fail('list inquiries', queue.text.slice(0, 500));
    },
  },
];
