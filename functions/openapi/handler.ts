import { openApiDocument } from '#shared/http/openapi.ts';
import type { ApiEvent, ApiResult } from '#shared/http/types.ts';
import { contracts } from '../contracts.ts';
import { routes } from '../definitions.ts';

/** The rendered document per server URL, built on the first request of a warm function. */
const rendered = new Map<string, string>();

/**
 * `GET /api/openapi.json`: the OpenAPI 3.1 document, as is (no envelope), naming the server the
 * request reached. Built from the route definitions and their contracts only: no handler module, no table.
 */
export const handler = async (event: ApiEvent): Promise<ApiResult> => {
  const host = event.headers?.host ?? event.requestContext.domainName;
  const scheme = event.headers?.['x-forwarded-proto'] ?? (/^(localhost|127\.0\.0\.1)(:\d+)?$/.test(host) ? 'http' : 'https');
  const serverUrl = `${scheme}://${host}`;
  let body = rendered.get(serverUrl);
  if (body === undefined) {
    body = JSON.stringify(openApiDocument(routes, contracts, { serverUrl }));
    if (rendered.size < 16) rendered.set(serverUrl, body);
  }
  return {
    statusCode: 200,
    headers: { 'Content-Type': 'application/json', 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'public, max-age=300' },
    body,
  };
};
