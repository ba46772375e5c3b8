import { replaceGradeable } from '#shared/gradeables/change.ts';
import { gradeableIdFrom } from '#shared/gradeables/gradeable.ts';
import { downloadForm } from '#shared/gradeables/listing.ts';
import { endpoint } from '#shared/http/endpoint.ts';
import { answerEtag, ifMatchHolds } from '#shared/http/etag.ts';
import { WithHeaders } from '#shared/http/paging.ts';
import { ltiGradeableFollowUp } from '#shared/lti/score-queue.ts';
import { definition } from './definition.ts';

export const handler = endpoint(definition, {
  malformed: { gradeable_id: gradeableIdFrom },
  handle: async ({ course, caller, params, query, headers, body }) => {
    const ifMatch = headers['If-Match'];
    const stored = await replaceGradeable(course, params.gradeable_id, body, {
      actor: caller.userId,
      dryRun: query.dry_run === true,
      followUp: (before, after, at) => ltiGradeableFollowUp(course, before, after, at),
      ...(ifMatch === undefined
        ? {}
        : { ifMatch: (current) => ifMatchHolds(ifMatch, answerEtag(downloadForm(current, course.timeZone))) === true }),
    });
    return query.dry_run ? stored : new WithHeaders(stored, { ETag: answerEtag(stored) });
  },
});
