import { describe, expect, it } from 'vitest';
import { errorEnvelope, failEnvelope, prefersHttpStatus, renderEnvelope, successEnvelope } from '#shared/http/envelope.ts';
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
  });

  it('states body limits the way the reference system does', () => {
    expect(formatByteLimit(1024 * 1024)).toBe('1M');
    expect(formatByteLimit(8 * 1024 ** 3)).toBe('8G');
    expect(formatByteLimit(1536)).toBe('1536');
    expect(bodyTooLarge(1024 * 1024).message).toBe('POST request exceeds maximum size of 1M');
  });
});
