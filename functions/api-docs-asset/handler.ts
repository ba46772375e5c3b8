import { assetAnswer } from '#shared/docs/assets.ts';
import { failEnvelope, prefersHttpStatus, renderEnvelope } from '#shared/http/envelope.ts';
import { endpointNotFound } from '#shared/http/failures.ts';
import type { ApiEvent, ApiResult } from '#shared/http/types.ts';

/** `GET /api/docs/{asset}`: Swagger UI's script or style sheet, as is; any other name is not an endpoint. */
export const handler = async (event: ApiEvent): Promise<ApiResult> =>
  assetAnswer(event.pathParameters?.asset, event.headers?.['accept-encoding']) ??
  renderEnvelope(failEnvelope(endpointNotFound().message), { httpStatus: 404, preferHttpStatus: prefersHttpStatus(event.headers?.prefer) });
