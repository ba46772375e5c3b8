import type { Context } from 'aws-lambda';
import { endpoint } from '#shared/http/endpoint.ts';
import type { ApiEvent } from '#shared/http/types.ts';
import { nightlyRosterSync, syncRoster } from '#shared/lti/roster-sync.ts';
import { definition } from './definition.ts';

const onRequest = endpoint(definition, {
  handle: ({ course, caller, body }) => syncRoster(course, { actor: caller.userId, dryRun: body.dry_run }),
});

/** One course on request; every linked course when the nightly schedule invokes it. */
export const handler = (event: ApiEvent | Record<string, unknown>, context: Context) =>
  'requestContext' in event && 'routeKey' in event ? onRequest(event as ApiEvent, context) : nightlyRosterSync();
