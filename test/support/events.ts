import type { Context } from 'aws-lambda';
import type { ApiEvent } from '#shared/http/types.ts';

/** A payload 2.0 event as API Gateway builds it, for calling a handler export directly. */
export function apiEvent(init: {
  method: string;
  path: string;
  routeKey?: string;
  headers?: Record<string, string>;
  body?: string;
  isBase64Encoded?: boolean;
}): ApiEvent {
  return {
    version: '2.0',
    routeKey: init.routeKey ?? `${init.method} ${init.path}`,
    rawPath: init.path,
    rawQueryString: '',
    headers: init.headers ?? {},
    requestContext: {
      accountId: 'test',
      apiId: 'test',
      domainName: 'api.example.edu',
      domainPrefix: 'api',
      http: { method: init.method, path: init.path, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'vitest' },
      requestId: 'request-1',
      routeKey: init.routeKey ?? `${init.method} ${init.path}`,
      stage: '$default',
      time: new Date().toUTCString(),
      timeEpoch: Date.now(),
    },
    body: init.body,
    isBase64Encoded: init.isBase64Encoded ?? false,
  };
}

export const lambdaContext = (awsRequestId = 'test-request-id'): Context =>
  ({ awsRequestId, functionName: 'test', getRemainingTimeInMillis: () => 10_000 }) as Context;
