import { CONTENT_SECURITY_POLICY, referencePage } from '#shared/docs/page.ts';
import type { ApiResult } from '#shared/http/types.ts';

const page = referencePage();

/** `GET /api/docs`: the reference page (HTML, not an envelope); its assets come from `GET /api/docs/{asset}`. */
export const handler = async (): Promise<ApiResult> => ({
  statusCode: 200,
  headers: {
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Security-Policy': CONTENT_SECURITY_POLICY,
    'Cache-Control': 'no-cache',
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
  },
  body: page,
});
