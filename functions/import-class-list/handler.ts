import { importClassListText } from '#shared/courses/enroll.ts';
import { endpoint } from '#shared/http/endpoint.ts';
import { definition } from './definition.ts';

export const handler = endpoint(definition, {
  handle: ({ course, body, query, caller }) =>
    importClassListText(course, body.class_list, { actor: caller.userId, dryRun: query.dry_run, dropMissing: query.drop_missing }),
});
