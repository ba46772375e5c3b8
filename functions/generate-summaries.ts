import type { Context } from 'aws-lambda';
import { endpoint } from '#shared/http/endpoint.ts';
import type { ApiEvent } from '#shared/http/types.ts';
import { generateAllSummaries, generateSummaries } from '#shared/summaries/generate.ts';

const onRequest = endpoint('generate-summaries', {
  handle: ({ course }) => generateSummaries(course),
});

/** One course on request; every unarchived course when the nightly schedule invokes it. */
export const handler = (event: ApiEvent | Record<string, unknown>, context: Context) =>
  'requestContext' in event && 'routeKey' in event ? onRequest(event as ApiEvent, context) : generateAllSummaries();
