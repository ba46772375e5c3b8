import type { MiddlewareObj } from '@middy/core';
import { logger } from '#shared/logger.ts';
import { endRequestWrites, type RequestWrites } from '#shared/data/request-writes.ts';
import {
  errorEnvelope,
  errorMessage,
  failEnvelope,
  prefersHttpStatus,
  renderEnvelope,
  successEnvelope,
  type ErrorCode,
} from '../envelope.ts';
import { Refusal } from '#shared/errors.ts';
import { ApiFailure, failureOf } from '../failures.ts';
import { countAnswer } from '../metrics.ts';
import type { ApiContext, ApiEvent, ApiResult } from '../types.ts';

/**
 * Outermost middleware: the handler's return value becomes a success envelope, a Refusal or an
 * ApiFailure a fail envelope, and anything else an error envelope that names only the request id and
 * whether anything may have been written (`code`, see `errorCode`). Before deciding, the request's
 * access to DynamoDB ends: a handler still running (the function's time ran out) writes nothing
 * after this answer. Unexpected errors are logged as one structured line (never with headers or body).
 */
export const envelope = (successStatus = 200): MiddlewareObj<ApiEvent, ApiResult, Error, ApiContext> => ({
  after: (request) => {
    request.response = renderEnvelope(successEnvelope(request.response), {
      httpStatus: successStatus,
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
    const writes = endRequestWrites();
    const code = errorCode(error, writes);
    countAnswer('error', request.event.routeKey, code);
    logger.error({
      message: 'Unhandled error',
      requestId,
      routeKey: request.event.routeKey,
      code,
      writes,
      error: error instanceof Error ? error : new Error(String(error)),
    });
    request.response = renderEnvelope(errorEnvelope(errorMessage(code, requestId), code), { httpStatus: 500, preferHttpStatus });
  },
});

/**
 * The `code` of an error answer, so a client knows whether a retry is safe:
 * - `UNKNOWN_OUTCOME` once a write may have taken effect (applied, or sent with no answer): whatever
 *   failed then, the client cannot be told that nothing was written;
 * - otherwise `RETRYABLE` for a transient failure (nothing was written and a later attempt may
 *   succeed; on a read-only route every transient failure is this);
 * - otherwise `INTERNAL`: a defect, before anything was written.
 */
export function errorCode(error: unknown, writes: RequestWrites): ErrorCode {
  if (writes !== 'none') return 'UNKNOWN_OUTCOME';
  return isTransient(error) ? 'RETRYABLE' : 'INTERNAL';
}

/**
 * Errors that a later attempt may not meet: throttling, conflicts, time-outs (the SDK's, or middy's
 * when the function's time runs out), DynamoDB's 5xx. Whether anything was written is not theirs
 * to say: the request's write record decides that (`errorCode`).
 */
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
/**
 * Connection failures with no answer from DynamoDB (it is restarting, or unreachable for a moment):
 * Node's socket error codes, which the SDK passes on as they are.
 */
const CONNECTION_FAILURES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH']);
/** Cancellation reasons that say only "not now": a transaction cancelled for these wrote nothing. */
const TRANSIENT_CANCELLATIONS = new Set(['None', 'TransactionConflict', 'ThrottlingError', 'ProvisionedThroughputExceeded']);

/**
 * True when the failure is transient: throttling, time-outs, transaction conflicts, SDK errors
 * marked `$retryable`, DynamoDB's 5xx and a connection refused or reset. A transaction cancelled
 * for a failed condition is not.
 */
export function isTransient(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { name, code, $retryable, $metadata, CancellationReasons } = error as {
    name?: string;
    code?: unknown;
    $retryable?: unknown;
    $metadata?: { httpStatusCode?: number };
    CancellationReasons?: { Code?: string }[];
  };
  if (name === 'TransactionCanceledException') {
    const codes = (CancellationReasons ?? []).map((reason) => reason.Code ?? 'None');
    return codes.some((code) => code !== 'None') && codes.every((code) => TRANSIENT_CANCELLATIONS.has(code));
  }
  if (name !== undefined && TRANSIENT_NAMES.has(name)) return true;
  if (typeof code === 'string' && CONNECTION_FAILURES.has(code)) return true;
  if ($retryable) return true;
  return ($metadata?.httpStatusCode ?? 0) >= 500;
}
