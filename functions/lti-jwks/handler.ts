import type { ApiResult } from '#shared/http/types.ts';
import { publicKeySet, toolKeys } from '#shared/lti/tool-keys.ts';

/** `GET /api/lti/jwks`: a JSON Web Key Set (RFC 7517), not an envelope, as platforms read it. */
export const handler = async (): Promise<ApiResult> => ({
  statusCode: 200,
  headers: { 'Content-Type': 'application/json', 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'public, max-age=300' },
  body: JSON.stringify(publicKeySet(await toolKeys())),
});
