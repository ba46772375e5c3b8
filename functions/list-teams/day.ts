/** The deployed day's steps of `list-teams` (test/deployed/day.ts says how the day runs them). */
import { call, COURSE, fail, PAIR_PROJECT, TERM, type RouteDay } from '../../test/deployed/day.ts';

export const day: RouteDay = [
  {
    title: "lists the team gradeable's team",
    phase: 'team listed',
    run: async () => {
      const teams = `/api/${TERM}/${COURSE}/gradeable/${PAIR_PROJECT}/teams`;
      const listed = await call('GET', teams, { as: 'prof' });
      if (
        listed.json &&
        JSON.stringify((listed.json as { data?: unknown }).data) !== '[{"team_id":"pair1","members":["student","student2"]}]'
      )
        fail(`GET ${teams}`, listed.text.slice(0, 500));
    },
  },
];
