import { errorEnvelope, errorMessage, prefersHttpStatus, renderEnvelope } from '#shared/http/envelope.ts';
import type { ApiEvent, ApiResult } from '#shared/http/types.ts';
import { publishedRecordKeys } from '#shared/grading/record-keys.ts';
import { logger } from '#shared/logger.ts';

/** `GET /api/records/jwks`: the record keys' public halves as a JWK Set, as is (no envelope), so any JOSE library reads it. */
export const handler = async (event: ApiEvent): Promise<ApiResult> => {
  try {
    return {
      statusCode: 200,
      headers: { 'Content-Type': 'application/json', 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'public, max-age=300' },
      body: JSON.stringify(await publishedRecordKeys()),
    };
  } catch (error) {
    logger.error({ message: 'The record keys could not be read', problem: String(error) });
    const requestId = event.requestContext.requestId;
    return renderEnvelope(errorEnvelope(errorMessage('RETRYABLE', requestId), 'RETRYABLE'), {
      httpStatus: 503,
      preferHttpStatus: prefersHttpStatus(event.headers?.prefer),
    });
  }
};
