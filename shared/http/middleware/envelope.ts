import type { MiddlewareObj } from '@middy/core';
import { logger } from '#shared/logger.ts';
import { errorEnvelope, failEnvelope, prefersHttpStatus, renderEnvelope, successEnvelope } from '../envelope.ts';
import { Refusal } from '#shared/errors.ts';
import { ApiFailure, failureOf } from '../failures.ts';
import { countAnswer } from '../metrics.ts';
import type { ApiContext, ApiEvent, ApiResult } from '../types.ts';

/**
 * Outermost middleware: the handler's return value becomes a success envelope, a Refusal or an
 * ApiFailure a fail envelope, and anything else an error envelope that names only the request id and whether
 * retrying is safe (`code`). Unexpected errors are logged as one structured line (never with
 * headers or body).
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
    const error = request.error instanceof Refusal ? failureOf(request.error) : request.error;
    if (error instanceof ApiFailure) {
      countAnswer('fail', request.event.routeKey);
      request.response = renderEnvelope(failEnvelope(error.message, error.data), {
        httpStatus: error.httpStatus,
        preferHttpStatus,
        headers: error.headers,
      });
      return;
    }
    const requestId = request.context.awsRequestId;
    const code = isTransient(error) ? 'RETRYABLE' : 'INTERNAL';
    countAnswer('error', request.event.routeKey, code);
    logger.error({
      message: 'Unhandled error',
      requestId,
      routeKey: request.event.routeKey,
      code,
      error: error instanceof Error ? error : new Error(String(error)),
    });
    request.response = renderEnvelope(
      errorEnvelope(`The request could not be completed. Please try again later (request ${requestId}).`, code),
      { httpStatus: 500, preferHttpStatus },
    );
  },
});

/** Errors DynamoDB (or the SDK) reports before writing anything, and that a later attempt may not meet. */
const TRANSIENT_NAMES = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'TransactionConflictException',
  'TransactionInProgressException',
  'InternalServerError',
  'ServiceUnavailable',
  'TimeoutError',
  'RequestTimeout',
  'RequestTimeoutException',
]);
/** Cancellation reasons that say only "not now": a transaction cancelled for these wrote nothing. */
const TRANSIENT_CANCELLATIONS = new Set(['None', 'TransactionConflict', 'ThrottlingError', 'ProvisionedThroughputExceeded']);

/**
 * True when the failure is transient and nothing was written, so the client may simply retry:
 * throttling, time-outs, transaction conflicts, SDK errors marked `$retryable` and DynamoDB's 5xx.
 */
export function isTransient(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { name, $retryable, $metadata, CancellationReasons } = error as {
    name?: string;
    $retryable?: unknown;
    $metadata?: { httpStatusCode?: number };
    CancellationReasons?: { Code?: string }[];
  };
  if (name === 'TransactionCanceledException') {
    const codes = (CancellationReasons ?? []).map((reason) => reason.Code ?? 'None');
    return codes.some((code) => code !== 'None') && codes.every((code) => TRANSIENT_CANCELLATIONS.has(code));
  }
  if (name !== undefined && TRANSIENT_NAMES.has(name)) return true;
  if ($retryable) return true;
  return ($metadata?.httpStatusCode ?? 0) >= 500;
}
