/** The deployed day's steps of `post-to-inquiry` (test/deployed/day.ts says how the day runs them). */
import { call, handedOn, inquiriesPath, type RouteDay } from '../../test/deployed/day.ts';

export const day: RouteDay = [
  {
    title: 'a grader answers the grade inquiry',
    phase: 'inquiry answered',
    run: async () => {
      await call('POST', `${inquiriesPath}/${handedOn.inquiryId}/posts`, { as: 'ta', json: { content: 'Names were unclear on line 12.' } });
    },
  },
];
