import type { Context } from 'aws-lambda';
import { endpoint } from '#shared/http/endpoint.ts';
import type { ApiEvent } from '#shared/http/types.ts';
import { nightlySummaries, requestSummaries, requestSummariesReads } from '#shared/summaries/job.ts';
import { definition } from './definition.ts';

const onRequest = endpoint(definition, {
  reads: ({ params }) => requestSummariesReads(params),
  handle: ({ caller, course, items }) => requestSummaries({ caller, course, slot: items.slot }),
});

/** One course on request (a large one as a job on the summaries queue); every unarchived course when the nightly schedule invokes it. */
export const handler = (event: ApiEvent | Record<string, unknown>, context: Context) =>
  'requestContext' in event && 'routeKey' in event ? onRequest(event as ApiEvent, context) : nightlySummaries();
