import { describe, expect, it } from 'vitest';
import middy from '@middy/core';
import {
  ERROR_CODES,
  errorEnvelope,
  errorMessage,
  failEnvelope,
  prefersHttpStatus,
  prefersRepresentation,
  renderEnvelope,
  successEnvelope,
} from '#shared/http/envelope.ts';
import { envelope } from '#shared/http/middleware/envelope.ts';
import { currentLedger, recordRequestWrites, REQUEST_ENDED } from '#shared/data/request-writes.ts';
import type { ApiContext, ApiEvent, ApiResult } from '#shared/http/types.ts';
import { bodyTooLarge, formatByteLimit } from '#shared/http/failures.ts';

describe('envelope', () => {
  it('keeps the key order status, data, message, code', () => {
    expect(JSON.stringify(failEnvelope('No.', { field: 'x' }))).toBe('{"status":"fail","data":{"field":"x"},"message":"No."}');
    expect(JSON.stringify(errorEnvelope('Broken.', 'E1'))).toBe('{"status":"error","message":"Broken.","code":"E1"}');
  });

  it('gives success a null data when there is nothing to return', () => {
    expect(successEnvelope(undefined)).toEqual({ status: 'success', data: null });
    expect(successEnvelope([])).toEqual({ status: 'success', data: [] });
  });

  it('leaves out empty data on fail', () => {
    for (const empty of [undefined, null, {}, [], '']) {
      expect(Object.keys(failEnvelope('No.', empty))).toEqual(['status', 'message']);
    }
  });

  it('answers 200 unless the client prefers real status codes', () => {
    const plain = renderEnvelope(failEnvelope('No.'), { httpStatus: 404, preferHttpStatus: false });
    expect(plain.statusCode).toBe(200);
    expect(plain.headers).toMatchObject({
      'Content-Type': 'application/json',
      'X-Content-Type-Options': 'nosniff',
      'Cache-Control': 'no-store',
    });
    expect(plain.headers).not.toHaveProperty('Preference-Applied');
    const real = renderEnvelope(failEnvelope('No.'), { httpStatus: 404, preferHttpStatus: true });
    expect(real.statusCode).toBe(404);
    expect(real.headers).toMatchObject({ 'Preference-Applied': 'http-status' });
    expect(real.body).toBe(plain.body);
  });

  it('reads the Prefer header as RFC 7240 preferences', () => {
    expect(prefersHttpStatus('http-status')).toBe(true);
    expect(prefersHttpStatus('respond-async, HTTP-Status')).toBe(true);
    expect(prefersHttpStatus('return=minimal; http-status')).toBe(false);
    expect(prefersHttpStatus('http-statuses')).toBe(false);
    expect(prefersHttpStatus(undefined)).toBe(false);
    expect(prefersRepresentation('return=representation')).toBe(true);
    expect(prefersRepresentation('http-status, Return="representation"; charset=x')).toBe(true);
    expect(prefersRepresentation('return=minimal')).toBe(false);
    expect(prefersRepresentation('representation')).toBe(false);
    expect(prefersRepresentation(undefined)).toBe(false);
  });

  it('states body limits the way the reference system does', () => {
    expect(formatByteLimit(1024 * 1024)).toBe('1M');
    expect(formatByteLimit(8 * 1024 ** 3)).toBe('8G');
    expect(formatByteLimit(1536)).toBe('1536');
    expect(bodyTooLarge(1024 * 1024).message).toBe('POST request exceeds maximum size of 1M');
  });
});

describe('error answers', () => {
  it('say in plain words what their code says, and name the request id', () => {
    expect(Object.keys(ERROR_CODES)).toEqual(['RETRYABLE', 'UNKNOWN_OUTCOME', 'INTERNAL']);
    expect(errorMessage('RETRYABLE', 'r-1')).toMatch(/nothing was changed.*safe to send it again.*r-1/);
    expect(errorMessage('UNKNOWN_OUTCOME', 'r-2')).toMatch(
      /may or may not have been applied.*r-2.*same Idempotency-Key.*check the current state/,
    );
    expect(errorMessage('INTERNAL', 'r-3')).toMatch(/internal error; nothing was changed.*report request r-3/);
  });

  /** One request through the envelope middleware, with its write record, as endpoint() runs it. */
  const answer = (handler: () => Promise<unknown>) => {
    const run = middy<ApiEvent, ApiResult, Error, ApiContext>()
      .use(envelope())
      .handler(handler as () => Promise<ApiResult>);
    const event = { routeKey: 'POST /api/test', headers: {} } as unknown as ApiEvent;
    const context = { awsRequestId: 'req-1' } as ApiContext;
    return recordRequestWrites(async () => JSON.parse(String(((await run(event, context)) as { body: string }).body)));
  };
  const timeout = () => Object.assign(new Error('timed out'), { name: 'TimeoutError' });

  it('is RETRYABLE for a transient failure before any write', async () => {
    expect(await answer(async () => Promise.reject(timeout()))).toMatchObject({ status: 'error', code: 'RETRYABLE' });
  });

  it('is UNKNOWN_OUTCOME for a failure with a write in flight, or after one was applied', async () => {
    const inFlight = await answer(async () => {
      currentLedger()?.start();
      throw timeout();
    });
    expect(inFlight).toMatchObject({ code: 'UNKNOWN_OUTCOME', message: errorMessage('UNKNOWN_OUTCOME', 'req-1') });
    const after = await answer(async () => {
      currentLedger()?.start()('applied');
      throw new TypeError('a defect after the write');
    });
    expect(after.code).toBe('UNKNOWN_OUTCOME');
  });

  it('is INTERNAL for a defect before any write', async () => {
    expect(await answer(async () => Promise.reject(new TypeError('x')))).toMatchObject({ code: 'INTERNAL' });
  });

  it("ends the request's access to DynamoDB: a handler still running sends nothing after the answer", async () => {
    let ledger: ReturnType<typeof currentLedger>;
    await answer(async () => {
      ledger = currentLedger();
      throw timeout();
    });
    expect(() => ledger?.checkOpen('TransactWriteItemsCommand')).toThrow(expect.objectContaining({ name: REQUEST_ENDED }));
  });
});
