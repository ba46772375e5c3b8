import type { MiddlewareObj } from '@middy/core';
import { conditionalAnswer } from '../etag.ts';
import type { ApiContext, ApiEvent, ApiResult } from '../types.ts';

/** Outside the envelope: tags the rendered success answer with an ETag and answers 304 when it matches. */
export const conditional = (): MiddlewareObj<ApiEvent, ApiResult, Error, ApiContext> => ({
  after: (request) => {
    if (request.response) request.response = conditionalAnswer(request.response, request.event.headers?.['if-none-match']);
  },
});
