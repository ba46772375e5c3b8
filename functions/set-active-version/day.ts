/** The deployed day's steps of `set-active-version` (test/deployed/day.ts says how the day runs them). */
import { call, CAN_BUILD, COURSE, fail, GRADEABLE, TERM, type RouteDay } from '../../test/deployed/day.ts';

export const day: RouteDay = [
  {
    title: 'a student chooses the active version',
    phase: 'active version chosen',
    run: async () => {
      if (CAN_BUILD) {
        const chosen = await call('POST', `/api/${TERM}/${COURSE}/gradeable/${GRADEABLE}/version`, {
          as: 'student',
          form: { version: '1' },
        });
        if (chosen.json?.data && chosen.json.data.active_version !== 1) fail('choose the active version', chosen.text.slice(0, 500));
      } else {
        await call('POST', `/api/${TERM}/${COURSE}/gradeable/${GRADEABLE}/version`, {
          as: 'student',
          form: { version: '1' },
          expect: { fail: 'There is no submission to choose a version of.', status: 400 },
        });
      }
    },
  },
];
