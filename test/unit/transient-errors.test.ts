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
import { errorCode, isTransient } from '#shared/http/middleware/envelope.ts';
import {
  attemptRefused,
  commandOutcome,
  endRequestWrites,
  isWriteCommand,
  recordRequestWrites,
  currentLedger,
  REQUEST_ENDED,
} from '#shared/data/request-writes.ts';

// An error answer's `code` is decided from two things: whether the request may have
// written anything (its write record, shared/data/request-writes.ts) and whether the failure is
// transient (`isTransient`). RETRYABLE must mean "nothing was written and a later attempt may
// succeed"; UNKNOWN_OUTCOME "a write may have taken effect"; INTERNAL "a defect, nothing written".

const metadata = (httpStatusCode: number) => ({ $metadata: { httpStatusCode } });
const cancelled = (...codes: (string | undefined)[]) =>
  new TransactionCanceledException({
    message: 'Transaction cancelled',
    ...metadata(400),
    CancellationReasons: codes.map((Code) => (Code === undefined ? {} : { Code })),
  });

describe('a transient failure (RETRYABLE when nothing was written)', () => {
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

  it('is a connection to DynamoDB refused or reset (it is restarting), as the SDK passes it on', () => {
    for (const code of ['ECONNREFUSED', 'ECONNRESET', 'EPIPE'])
      expect(isTransient(Object.assign(new Error(`connect ${code} 127.0.0.1:8000`), { code, $metadata: { attempts: 3 } }))).toBe(true);
    expect(isTransient(Object.assign(new Error('no such file'), { code: 'ENOENT' }))).toBe(false);
  });

  it('is a transaction cancelled only for conflicts, throttling or capacity', () => {
    expect(isTransient(cancelled('None', 'TransactionConflict'))).toBe(true);
    expect(isTransient(cancelled('ThrottlingError', 'None', 'ProvisionedThroughputExceeded'))).toBe(true);
    expect(isTransient(cancelled(undefined, 'TransactionConflict'))).toBe(true);
  });
});

describe('a lasting failure (INTERNAL when nothing was written)', () => {
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

describe('the code of an error answer', () => {
  const timeout = Object.assign(new Error('timed out'), { name: 'TimeoutError' });
  const throttled = new ProvisionedThroughputExceededException({ message: 'm', ...metadata(400) });

  it('is RETRYABLE for a transient failure when nothing was written (a read-only route, a failure before any write)', () => {
    expect(errorCode(throttled, 'none')).toBe('RETRYABLE');
    expect(errorCode(timeout, 'none')).toBe('RETRYABLE');
    expect(errorCode(cancelled('None', 'TransactionConflict'), 'none')).toBe('RETRYABLE');
    expect(errorCode(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:8000'), { code: 'ECONNREFUSED' }), 'none')).toBe('RETRYABLE');
  });

  it('is UNKNOWN_OUTCOME once a write may have taken effect, whatever failed', () => {
    for (const writes of ['unknown', 'applied'] as const) {
      expect(errorCode(timeout, writes)).toBe('UNKNOWN_OUTCOME');
      expect(errorCode(throttled, writes)).toBe('UNKNOWN_OUTCOME');
      expect(errorCode(new TypeError('defect after the write'), writes)).toBe('UNKNOWN_OUTCOME');
    }
  });

  it('is INTERNAL for a defect before anything was written', () => {
    expect(errorCode(new Error('boom'), 'none')).toBe('INTERNAL');
    expect(errorCode(cancelled('ConditionalCheckFailed'), 'none')).toBe('INTERNAL');
  });
});

describe('one attempt of a write', () => {
  it('was refused when DynamoDB answered 4xx: throttling, a failed condition, a cancelled transaction, a denial', () => {
    const options = { message: 'm', ...metadata(400) };
    expect(attemptRefused(new ProvisionedThroughputExceededException(options))).toBe(true);
    expect(attemptRefused(new ThrottlingException(options))).toBe(true);
    expect(attemptRefused(new ConditionalCheckFailedException(options))).toBe(true);
    expect(attemptRefused(cancelled('None', 'TransactionConflict'))).toBe(true);
    expect(attemptRefused(new TransactionConflictException(options))).toBe(true);
    expect(attemptRefused({ name: 'AccessDeniedException', ...metadata(400) })).toBe(true);
    expect(attemptRefused({ name: REQUEST_ENDED })).toBe(true);
  });

  it('was refused when the connection was: nothing reached DynamoDB', () => {
    expect(attemptRefused(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:8000'), { code: 'ECONNREFUSED', $metadata: {} }))).toBe(
      true,
    );
  });

  it('has an unknown outcome without an answer (time-out, reset connection), with a 5xx, or while the same transaction is in progress', () => {
    for (const name of ['TimeoutError', 'RequestTimeout', 'AbortError'])
      expect(attemptRefused(Object.assign(new Error('m'), { name }))).toBe(false);
    expect(attemptRefused(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET', $metadata: {} }))).toBe(false);
    expect(attemptRefused(new InternalServerError({ message: 'm', ...metadata(500) }))).toBe(false);
    expect(attemptRefused({ name: 'ServiceUnavailable', ...metadata(503) })).toBe(false);
    expect(attemptRefused(new TransactionInProgressException({ message: 'm', ...metadata(400) }))).toBe(false);
    for (const thrown of [undefined, null, 'TimeoutError']) expect(attemptRefused(thrown)).toBe(false);
  });
});

describe('the outcome of a write command', () => {
  it('is applied when it succeeded, even after an attempt without an answer (the SDK retried it)', () => {
    expect(commandOutcome({ sent: 2, uncertain: true }, true)).toBe('applied');
  });

  it('is refused when nothing was sent, or every attempt was refused', () => {
    expect(commandOutcome({ sent: 0, uncertain: false }, false)).toBe('refused');
    expect(commandOutcome({ sent: 3, uncertain: false }, false)).toBe('refused');
  });

  it('is unknown when an attempt was sent without a known result, even if a later attempt was refused', () => {
    // The first attempt timed out after DynamoDB applied it; the retry found its condition failing.
    expect(commandOutcome({ sent: 2, uncertain: true }, false)).toBe('unknown');
  });

  it('names the commands that write', () => {
    for (const name of ['PutItemCommand', 'UpdateItemCommand', 'DeleteItemCommand', 'BatchWriteItemCommand', 'TransactWriteItemsCommand'])
      expect(isWriteCommand(name)).toBe(true);
    for (const name of ['GetItemCommand', 'BatchGetItemCommand', 'QueryCommand', 'ScanCommand', 'TransactGetItemsCommand'])
      expect(isWriteCommand(name)).toBe(false);
  });
});

describe("a request's write record", () => {
  it('is none outside a request, and for a request that wrote nothing', async () => {
    expect(endRequestWrites()).toBe('none');
    expect(await recordRequestWrites(async () => endRequestWrites())).toBe('none');
  });

  it('is none when every write was refused, applied once one took effect, unknown while one is open or unknown', async () => {
    const record = (...outcomes: ('applied' | 'refused' | 'unknown' | 'open')[]) =>
      recordRequestWrites(async () => {
        const ledger = currentLedger()!;
        for (const outcome of outcomes) {
          const settle = ledger.start();
          if (outcome !== 'open') settle(outcome);
        }
        return endRequestWrites();
      });
    expect(await record('refused', 'refused')).toBe('none');
    expect(await record('refused', 'applied')).toBe('applied');
    expect(await record('applied', 'unknown')).toBe('unknown');
    expect(await record('applied', 'open')).toBe('unknown');
  });

  it('sends nothing more once the request has answered', async () => {
    await recordRequestWrites(async () => {
      const ledger = currentLedger()!;
      ledger.checkOpen('PutItemCommand');
      endRequestWrites();
      expect(() => ledger.checkOpen('PutItemCommand')).toThrow(expect.objectContaining({ name: REQUEST_ENDED }));
    });
  });
});
