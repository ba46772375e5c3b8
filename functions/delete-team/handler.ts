import { teamNotFound } from '#shared/courses/failures.ts';
import { gradeableNotFound } from '#shared/gradeables/failures.ts';
import { gradeableRef } from '#shared/gradeables/stored.ts';
import { deleteTeam } from '#shared/gradeables/teams.ts';
import { endpoint } from '#shared/http/endpoint.ts';
import { definition } from './definition.ts';

export const handler = endpoint(definition, {
  reads: ({ params }) => ({ gradeable: gradeableRef(params.semester, params.course, params.gradeable_id) }),
  malformed: { gradeable_id: () => gradeableNotFound(), team_id: (teamId) => teamNotFound({ team_id: teamId }) },
  handle: ({ caller, course, params, items }) =>
    deleteTeam(course, items.gradeable, { gradeableId: params.gradeable_id, teamId: params.team_id, actor: caller.userId }),
});
