import { deleteGradeable } from '#shared/gradeables/change.ts';
import { gradeableIdFrom } from '#shared/gradeables/gradeable.ts';
import { downloadForm } from '#shared/gradeables/listing.ts';
import { endpoint } from '#shared/http/endpoint.ts';
import { answerEtag, ifMatchHolds } from '#shared/http/etag.ts';
import { definition } from './definition.ts';

export const handler = endpoint(definition, {
  malformed: { gradeable_id: gradeableIdFrom },
  handle: ({ course, caller, params, headers }) => {
    const ifMatch = headers['If-Match'];
    return deleteGradeable(course, params.gradeable_id, {
      actor: caller.userId,
      ...(ifMatch === undefined
        ? {}
        : { ifMatch: (current) => ifMatchHolds(ifMatch, answerEtag(downloadForm(current, course.timeZone))) === true }),
    });
  },
});
