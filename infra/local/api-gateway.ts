import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApiEvent, ApiResult } from '#shared/http/types.ts';

/** Bodies API Gateway hands to Lambda as text; everything else arrives base64-encoded. */
const TEXT_MEDIA_TYPES = /^(text\/|application\/(json|[\w.-]+\+json|x-www-form-urlencoded|xml|javascript)\b)/i;

export interface MatchedRoute {
  readonly routeKey: string;
  readonly pathParameters?: Record<string, string>;
}

/**
 * A request's target as a URL. An origin-form target is read as a path, so `//x` stays a path (read
 * against a base, it would name a host `x`, and `//` no URL at all); an absolute-form one as itself;
 * anything else (`*`) as the root.
 */
export function requestTarget(target = '/'): URL {
  if (target.startsWith('/')) return new URL(`http://localhost${target}`);
  return URL.canParse(target) ? new URL(target) : new URL('http://localhost/');
}

/** The API Gateway HTTP API (payload format 2.0) event the deployed function would receive. */
export function toApiGatewayEvent(request: IncomingMessage, body: Buffer, route: MatchedRoute, requestId: string): ApiEvent {
  const url = requestTarget(request.url);
  const headers: Record<string, string> = {};
  let cookies: string[] | undefined;
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue;
    if (name === 'cookie') cookies = String(value).split(/;\s*/);
    else headers[name] = Array.isArray(value) ? value.join(',') : value;
  }
  const query: Record<string, string> = {};
  for (const [name, value] of url.searchParams) query[name] = name in query ? `${query[name]},${value}` : value;

  const isText = TEXT_MEDIA_TYPES.test(headers['content-type'] ?? '');
  const now = new Date();
  return {
    version: '2.0',
    routeKey: route.routeKey,
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    cookies,
    headers,
    queryStringParameters: Object.keys(query).length > 0 ? query : undefined,
    pathParameters: route.pathParameters && Object.keys(route.pathParameters).length > 0 ? route.pathParameters : undefined,
    requestContext: {
      accountId: 'offline',
      apiId: 'local',
      domainName: headers.host ?? 'localhost',
      domainPrefix: (headers.host ?? 'localhost').replace(/\..*$/s, ''),
      http: {
        method: request.method ?? 'GET',
        path: url.pathname,
        protocol: `HTTP/${request.httpVersion}`,
        sourceIp: request.socket.remoteAddress ?? '127.0.0.1',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId,
      routeKey: route.routeKey,
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
    },
    body: body.length === 0 ? undefined : isText ? body.toString('utf8') : body.toString('base64'),
    isBase64Encoded: body.length > 0 && !isText,
  };
}

/** Writes a Lambda proxy result the way API Gateway does. */
export function writeResult(response: ServerResponse, result: ApiResult): void {
  const body = result.body ?? '';
  response.writeHead(result.statusCode ?? 200, {
    ...result.headers,
    ...(result.cookies ? { 'Set-Cookie': result.cookies } : {}),
  });
  response.end(result.isBase64Encoded ? Buffer.from(body, 'base64') : body);
}
