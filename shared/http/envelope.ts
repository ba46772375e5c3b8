import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';

/** The modified JSend envelope of api.md; key order is status, data, message, code. */
export type Envelope =
  | { status: 'success'; data: unknown }
  | { status: 'fail'; data?: unknown; message: string }
  | { status: 'error'; data?: unknown; message: string; code?: string };

/**
 * The `code` of an `error` answer, decided per failure: what a client may do about it.
 * The README's "Answers" section and the OpenAPI document say the same.
 */
export const ERROR_CODES = {
  RETRYABLE:
    'The service failed and nothing was written: send the same request again after a short wait, backing off (throttling, a transaction conflict, a time-out before anything was written, a failed read).',
  UNKNOWN_OUTCOME:
    'A write was sent and its result is not known: the request may have been applied. Send it again with the same `Idempotency-Key` (you get the first outcome, or it is done once), or read the current state before retrying without one.',
  INTERNAL: 'A defect of the service; nothing was written. Retrying will not help: report the request id the message names.',
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

/** The `message` of an `error` answer: what happened, in plain words, and the request id. */
export function errorMessage(code: ErrorCode, requestId: string): string {
  switch (code) {
    case 'RETRYABLE':
      return `The request could not be completed and nothing was changed. It is safe to send it again after a short wait (request ${requestId}).`;
    case 'UNKNOWN_OUTCOME':
      return `The request may or may not have been applied (request ${requestId}). Send it again with the same Idempotency-Key, or check the current state before sending it again without one.`;
    case 'INTERNAL':
      return `The request could not be completed because of an internal error; nothing was changed. Please report request ${requestId}.`;
  }
}

export const successEnvelope = (data: unknown): Envelope => ({
  status: 'success',
  data: data === undefined ? null : data,
});

export const failEnvelope = (message: string, data?: unknown): Envelope =>
  hasContent(data) ? { status: 'fail', data, message } : { status: 'fail', message };

export const errorEnvelope = (message: string, code?: string): Envelope =>
  code === undefined ? { status: 'error', message } : { status: 'error', message, code };

function hasContent(data: unknown): boolean {
  if (data === undefined || data === null) return false;
  if (Array.isArray(data)) return data.length > 0;
  if (typeof data === 'object') return Object.keys(data).length > 0;
  return data !== '';
}

/** True when the request carries the `Prefer: http-status` preference (RFC 7240 syntax). */
export function prefersHttpStatus(preferHeader: string | undefined): boolean {
  return preferences(preferHeader).some(({ name }) => name === 'http-status');
}

/** True when the request carries the `Prefer: return=representation` preference (RFC 7240 syntax, the value optionally quoted). */
export function prefersRepresentation(preferHeader: string | undefined): boolean {
  return preferences(preferHeader).some(({ name, value }) => name === 'return' && value === 'representation');
}

/** A `Prefer` header's preferences: each name (lower case) and value, their parameters (after `;`) left out. */
function preferences(preferHeader: string | undefined): { name: string; value: string | undefined }[] {
  if (!preferHeader) return [];
  return preferHeader.split(',').map((preference) => {
    const [token = ''] = preference.split(';', 1);
    const [name = '', value] = token.split('=', 2);
    return {
      name: name.trim().toLowerCase(),
      value: value
        ?.trim()
        .replace(/^"(.*)"$/, '$1')
        .toLowerCase(),
    };
  });
}

/** The `Preference-Applied` header naming the preferences applied, in the order given (RFC 7240). */
export const PREFERENCE_APPLIED = 'Preference-Applied';

/**
 * The HTTP response for an envelope: 200 unless the client opted into real status codes,
 * because the reference system's clients (axios) throw on any other status.
 */
export function renderEnvelope(
  envelope: Envelope,
  options: { httpStatus: number; preferHttpStatus: boolean; headers?: Readonly<Record<string, string>> },
): APIGatewayProxyStructuredResultV2 {
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    'X-Content-Type-Options': 'nosniff',
    'Cache-Control': 'no-store',
    ...options.headers,
  };
  if (options.preferHttpStatus) headers[PREFERENCE_APPLIED] = 'http-status';
  return {
    statusCode: options.preferHttpStatus ? options.httpStatus : 200,
    headers,
    body: JSON.stringify(envelope),
  };
}
