import { gradeableNotFound } from '#shared/gradeables/failures.ts';
import { gradeableRef } from '#shared/gradeables/stored.ts';
import { importTeamList } from '#shared/gradeables/team-list.ts';
import { endpoint } from '#shared/http/endpoint.ts';
import { courseGradeable } from '#shared/http/reads.ts';
import { definition } from './definition.ts';

export const handler = endpoint(definition, {
  reads: ({ params }) => {
    const { term, course, gradeableId } = courseGradeable(params);
    return { gradeable: gradeableRef(term, course, gradeableId) };
  },
  malformed: { gradeable_id: () => gradeableNotFound() },
  handle: ({ caller, course, params, items, body, query }) =>
    importTeamList(course, items.gradeable, params.gradeable_id, body.team_list, { actor: caller.userId, dryRun: query.dry_run ?? false }),
});
