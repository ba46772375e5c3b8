/** The deployed day's steps of `replay-lti-score` (test/deployed/day.ts says how the day runs them). */
import { call, COURSE, fail, handedOn, TERM, type RouteDay } from '../../test/deployed/day.ts';

const NO_DELIVERY = `ls_${Buffer.from(JSON.stringify(['hw', 'nobody', 'lti_x', 'ctx'])).toString('base64url')}`;

export const day: RouteDay = [
  {
    title: 'an instructor cannot replay a score delivery that does not exist',
    phase: 'courses read',
    run: async () => {
      await call('POST', `/api/${TERM}/${COURSE}/lti/scores/${NO_DELIVERY}/replay`, {
        as: 'prof',
        expect: { fail: `No LMS score delivery ${NO_DELIVERY.slice(0, 64)} of this course.`, status: 404 },
      });
    },
  },
  {
    title: 'the instructor replays the skipped delivery of the student who never launched: pending again',
    phase: 'lms scores replayed',
    builds: true,
    run: async () => {
      const deliveryId = handedOn.skippedScore;
      if (!deliveryId) return fail('replay a score delivery', 'no skipped delivery was listed');
      const replayed = await call('POST', `/api/${TERM}/${COURSE}/lti/scores/${deliveryId}/replay`, { as: 'prof' });
      if (replayed.json?.data?.state !== 'pending') fail('replay a score delivery', replayed.text.slice(0, 500));
    },
  },
];
