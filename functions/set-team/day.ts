/** The deployed day's steps of `set-team` (test/deployed/day.ts says how the day runs them). */
import { call, COURSE, PAIR_PROJECT, TERM, type RouteDay } from '../../test/deployed/day.ts';

const teams = `/api/${TERM}/${COURSE}/gradeable/${PAIR_PROJECT}/teams`;

export const day: RouteDay = [
  {
    title: 'the instructor forms a team of both students on a team gradeable, and is refused a grader in a team',
    phase: 'team formed',
    run: async () => {
      await call('POST', `/api/${TERM}/${COURSE}/upload`, {
        as: 'prof',
        json: { id: PAIR_PROJECT, title: 'Pair project', type: 'Electronic File', team_gradeable: { team_size_max: 2, inherit_from: '' } },
      });
      await call('PUT', `${teams}/pair1`, { as: 'prof', json: { members: ['student', 'student2'] } });
      await call('PUT', `${teams}/pair2`, {
        as: 'prof',
        json: { members: ['ta'] },
        expect: { fail: 'ta is not a student of this course.', status: 400 },
      });
    },
  },
];
