/** The deployed day's steps of `import-teams` (test/deployed/day.ts says how the day runs them). */
import { call, COURSE, fail, PAIR_PROJECT, TERM, type RouteDay } from '../../test/deployed/day.ts';

const TEAM_LIST = 'team_id,user_id\npair1,student\npair1,student2\npair2,ta\n';

export const day: RouteDay = [
  {
    title: 'the instructor forms the team again from a team list, after a dry run, the grader in it rejected by line',
    phase: 'teams imported',
    run: async () => {
      const teams = `/api/${TERM}/${COURSE}/gradeable/${PAIR_PROJECT}/teams`;
      const rejected = [{ line: 4, reason: 'Team pair2: ta is not a student of this course.' }];
      const dry = await call('POST', `${teams}/import?dry_run=true`, { as: 'prof', json: { team_list: TEAM_LIST } });
      if (JSON.stringify(dry.json?.data) !== JSON.stringify({ dry_run: true, created: 1, updated: 0, unchanged: 0, rejected }))
        fail('team list dry run', dry.text);
      const imported = await call('POST', `${teams}/import`, { as: 'prof', json: { team_list: TEAM_LIST } });
      if (JSON.stringify(imported.json?.data) !== JSON.stringify({ dry_run: false, created: 1, updated: 0, unchanged: 0, rejected }))
        fail('team list import', imported.text);
      const listed = await call('GET', teams, { as: 'prof' });
      if (JSON.stringify(listed.json?.data) !== '[{"team_id":"pair1","members":["student","student2"]}]') fail(`GET ${teams}`, listed.text);
    },
  },
];
