/** The deployed day's steps of `import-class-list` (test/deployed/day.ts says how the day runs them). */
import { call, COURSE, fail, TERM, type RouteDay } from '../../test/deployed/day.ts';

const LATE_LIST = 'user_id,first_name,last_name,email,registration_section,group\nlate.joiner,Lee,Late,lee@example.edu,2,Student\n';

export const day: RouteDay = [
  {
    title: 'a late joiner enrols by class list, after a dry run',
    phase: 'class list imported',
    run: async () => {
      const dry = await call('POST', `/api/${TERM}/${COURSE}/users/import?dry_run=true`, { as: 'prof', json: { class_list: LATE_LIST } });
      if (dry.json?.data && dry.json.data.created !== 1) fail('class list dry run', dry.text);
      const imported = await call('POST', `/api/${TERM}/${COURSE}/users/import`, { as: 'prof', json: { class_list: LATE_LIST } });
      if (imported.json?.data && imported.json.data.new_accounts?.[0]?.user_id !== 'late.joiner') fail('class list import', imported.text);
    },
  },
];
