import type { MiddlewareObj } from '@middy/core';
import { logger } from '#shared/logger.ts';
import {
  errorEnvelope,
  failEnvelope,
  prefersHttpStatus,
  renderEnvelope,
  successEnvelope,
} from '../envelope.ts';
import { ApiFailure } from '../failures.ts';
import type { ApiContext, ApiEvent, ApiResult } from '../types.ts';

/**
 * Outermost middleware: the handler's return value becomes a success envelope, an ApiFailure a
 * fail envelope, and anything else an error envelope that names only the request id. Unexpected
 * errors are logged as one structured line (never with headers or body).
 */
export const envelope = (): MiddlewareObj<ApiEvent, ApiResult, Error, ApiContext> => ({
  after: (request) => {
    request.response = renderEnvelope(successEnvelope(request.response), {
      httpStatus: 200,
      preferHttpStatus: prefersHttpStatus(request.event.headers?.prefer),
    });
  },
  onError: (request) => {
    const preferHttpStatus = prefersHttpStatus(request.event.headers?.prefer);
    const error = request.error;
    if (error instanceof ApiFailure) {
      request.response = renderEnvelope(failEnvelope(error.message, error.data), {
        httpStatus: error.httpStatus,
        preferHttpStatus,
        headers: error.headers,
      });
      return;
    }
    const requestId = request.context.awsRequestId;
    logger.error({
      message: 'Unhandled error',
      requestId,
      routeKey: request.event.routeKey,
      error: error instanceof Error ? error : new Error(String(error)),
    });
    request.response = renderEnvelope(
      errorEnvelope(`The request could not be completed. Please try again later (request ${requestId}).`),
      { httpStatus: 500, preferHttpStatus },
    );
  },
});
