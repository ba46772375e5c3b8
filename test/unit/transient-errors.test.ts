import {
  ConditionalCheckFailedException,
  InternalServerError,
  ItemCollectionSizeLimitExceededException,
  ProvisionedThroughputExceededException,
  RequestLimitExceeded,
  ResourceNotFoundException,
  ThrottlingException,
  TransactionCanceledException,
  TransactionConflictException,
  TransactionInProgressException,
} from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { isTransient } from '#shared/http/middleware/envelope.ts';

// `isTransient` decides an error answer's `code`: RETRYABLE (send the same request again) or
// INTERNAL. RETRYABLE must mean "nothing was written and a later attempt may succeed".

const metadata = (httpStatusCode: number) => ({ $metadata: { httpStatusCode } });
const cancelled = (...codes: (string | undefined)[]) =>
  new TransactionCanceledException({
    message: 'Transaction cancelled',
    ...metadata(400),
    CancellationReasons: codes.map((Code) => (Code === undefined ? {} : { Code })),
  });

describe('a transient failure (RETRYABLE)', () => {
  it('is DynamoDB throttling, a request limit or a transaction conflict, as the SDK throws them', () => {
    const options = { message: 'm', ...metadata(400) };
    expect(isTransient(new ThrottlingException(options))).toBe(true);
    expect(isTransient(new ProvisionedThroughputExceededException(options))).toBe(true);
    expect(isTransient(new RequestLimitExceeded(options))).toBe(true);
    expect(isTransient(new TransactionConflictException(options))).toBe(true);
    expect(isTransient(new TransactionInProgressException(options))).toBe(true);
  });

  it('is a DynamoDB 5xx, however it is named', () => {
    expect(isTransient(new InternalServerError({ message: 'm', ...metadata(500) }))).toBe(true);
    expect(isTransient({ name: 'ServiceUnavailable' })).toBe(true);
    expect(isTransient({ name: 'SomethingNew', ...metadata(500) })).toBe(true);
    expect(isTransient({ name: 'SomethingNew', ...metadata(503) })).toBe(true);
  });

  it('is a time-out of the SDK or of the request', () => {
    for (const name of ['TimeoutError', 'RequestTimeout', 'RequestTimeoutException']) {
      expect(isTransient(Object.assign(new Error('timed out'), { name }))).toBe(true);
    }
  });

  it('is any error the SDK marks retryable', () => {
    expect(isTransient({ name: 'NetworkingError', $retryable: {} })).toBe(true);
    expect(isTransient({ name: 'SomethingNew', $retryable: { throttling: true }, ...metadata(400) })).toBe(true);
  });

  it('is a transaction cancelled only for conflicts, throttling or capacity', () => {
    expect(isTransient(cancelled('None', 'TransactionConflict'))).toBe(true);
    expect(isTransient(cancelled('ThrottlingError', 'None', 'ProvisionedThroughputExceeded'))).toBe(true);
    expect(isTransient(cancelled(undefined, 'TransactionConflict'))).toBe(true);
  });
});

describe('a lasting failure (INTERNAL)', () => {
  it('is a failed condition: retrying cannot make it hold', () => {
    expect(isTransient(new ConditionalCheckFailedException({ message: 'The conditional request failed', ...metadata(400) }))).toBe(false);
  });

  it('is a transaction cancelled for a failed condition, even beside a conflict', () => {
    expect(isTransient(cancelled('None', 'ConditionalCheckFailed'))).toBe(false);
    expect(isTransient(cancelled('TransactionConflict', 'ConditionalCheckFailed'))).toBe(false);
    expect(isTransient(cancelled('ValidationError', 'None'))).toBe(false);
    expect(isTransient(cancelled('ItemCollectionSizeLimitExceeded'))).toBe(false);
  });

  it('is a transaction cancelled with no reason given, or only None', () => {
    expect(isTransient(cancelled())).toBe(false);
    expect(isTransient(cancelled('None', 'None'))).toBe(false);
    expect(isTransient(cancelled(undefined))).toBe(false);
    expect(isTransient({ name: 'TransactionCanceledException' })).toBe(false);
  });

  it('is any other client error of DynamoDB', () => {
    const options = { message: 'm', ...metadata(400) };
    expect(isTransient(new ResourceNotFoundException(options))).toBe(false);
    expect(isTransient(new ItemCollectionSizeLimitExceededException(options))).toBe(false);
    expect(isTransient({ name: 'ValidationException', ...metadata(400) })).toBe(false);
    expect(isTransient({ name: 'AccessDeniedException', ...metadata(499) })).toBe(false);
  });

  it('is a programming error, or something thrown that is not an error object', () => {
    expect(isTransient(new TypeError("Cannot read properties of undefined (reading 'x')"))).toBe(false);
    expect(isTransient(new Error('boom'))).toBe(false);
    for (const thrown of [undefined, null, 'ThrottlingException', 503, true]) expect(isTransient(thrown)).toBe(false);
  });
});
