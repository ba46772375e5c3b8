import { gradeableRef } from '#shared/gradeables/stored.ts';
import { listTeams, teamOrder } from '#shared/gradeables/teams.ts';
import { endpoint } from '#shared/http/endpoint.ts';
import { wholeOrPaged } from '#shared/http/paging.ts';
import { courseGradeable } from '#shared/http/reads.ts';
import { definition } from './definition.ts';

export const handler = endpoint(definition, {
  reads: ({ params }) => {
    const { term, course, gradeableId } = courseGradeable(params);
    return { gradeable: gradeableRef(term, course, gradeableId) };
  },
  handle: async ({ course, params, items, query, event }) =>
    wholeOrPaged({ event, query }, await listTeams(course, items.gradeable, courseGradeable(params).gradeableId), {
      ...teamOrder,
      list: 'teams list',
    }),
});
