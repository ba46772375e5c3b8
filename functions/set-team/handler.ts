import { gradeableRef } from '#shared/gradeables/stored.ts';
import { setTeamMembers } from '#shared/gradeables/teams.ts';
import { endpoint } from '#shared/http/endpoint.ts';
import { courseGradeable } from '#shared/http/reads.ts';
import { badTeamId } from '#shared/courses/failures.ts';
import { gradeableNotFound } from '#shared/gradeables/failures.ts';
import { definition } from './definition.ts';

export const handler = endpoint(definition, {
  reads: ({ params }) => {
    const { term, course, gradeableId } = courseGradeable(params);
    return { gradeable: gradeableRef(term, course, gradeableId) };
  },
  malformed: { gradeable_id: () => gradeableNotFound(), team_id: () => badTeamId() },
  handle: ({ caller, course, params, items, body }) =>
    setTeamMembers(course, items.gradeable, {
      gradeableId: params.gradeable_id,
      teamId: params.team_id,
      members: body.members ?? [],
      actor: caller.userId,
    }),
});
