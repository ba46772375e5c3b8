import type { ApiEvent, ApiResult } from '#shared/http/types.ts';
import { apiBaseUrl } from '#shared/lti/registration.ts';
import { toolConfiguration } from '#shared/lti/tool-config.ts';

/** `GET /api/lti/config`: the tool's JSON configuration, not an envelope (Canvas reads it from its "Enter URL"). */
export const handler = async (event: ApiEvent): Promise<ApiResult> => ({
  statusCode: 200,
  headers: { 'Content-Type': 'application/json', 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'no-cache' },
  body: JSON.stringify(
    toolConfiguration(apiBaseUrl(event.headers?.host ?? event.requestContext.domainName, event.headers?.['x-forwarded-proto'])),
  ),
});
