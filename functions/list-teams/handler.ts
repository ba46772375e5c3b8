import { gradeableNotFound } from '#shared/gradeables/failures.ts';
import { gradeableRef } from '#shared/gradeables/stored.ts';
import { listTeams, teamOrder } from '#shared/gradeables/teams.ts';
import { endpoint } from '#shared/http/endpoint.ts';
import { wholeOrPaged } from '#shared/http/paging.ts';
import { definition } from './definition.ts';

export const handler = endpoint(definition, {
  reads: ({ params }) => ({ gradeable: gradeableRef(params.semester, params.course, params.gradeable_id) }),
  malformed: { gradeable_id: () => gradeableNotFound() },
  handle: async ({ course, params, items, query, url }) =>
    wholeOrPaged({ url, query }, await listTeams(course, items.gradeable, params.gradeable_id), { ...teamOrder, list: 'teams list' }),
});
