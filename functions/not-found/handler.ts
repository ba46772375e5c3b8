import middy from '@middy/core';
import { gradeableNotSpecified } from '#shared/gradeables/failures.ts';
import { endpointNotFound, methodNotAllowed } from '#shared/http/failures.ts';
import { envelope } from '#shared/http/middleware/envelope.ts';
import { matchRoute } from '../definitions.ts';
import type { ApiContext, ApiEvent, ApiResult } from '#shared/http/types.ts';

/** The `$default` route: whatever no route matched gets an envelope, never API Gateway's own 404. */
export const handler = middy<ApiEvent, ApiResult, Error, ApiContext>()
  .use(envelope())
  .handler((event) => {
    const match = matchRoute(event.requestContext.http.method, event.rawPath);
    if (match.kind === 'method-not-allowed') throw methodNotAllowed(match.allowed);
    if (match.kind === 'missing-parameter' && match.parameter === 'gradeable_id') throw gradeableNotSpecified();
    throw endpointNotFound();
  });
