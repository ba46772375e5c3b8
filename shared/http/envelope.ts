import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';

/** The modified JSend envelope of api.md; key order is status, data, message, code. */
export type Envelope =
  | { status: 'success'; data: unknown }
  | { status: 'fail'; data?: unknown; message: string }
  | { status: 'error'; data?: unknown; message: string; code?: string };

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
  if (!preferHeader) return false;
  return preferHeader.split(',').some((preference) => (preference.split(/[;=]/, 1)[0] ?? '').trim().toLowerCase() === 'http-status');
}

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
  if (options.preferHttpStatus) headers['Preference-Applied'] = 'http-status';
  return {
    statusCode: options.preferHttpStatus ? options.httpStatus : 200,
    headers,
    body: JSON.stringify(envelope),
  };
}
