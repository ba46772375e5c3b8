import type { MiddlewareObj, Request } from '@middy/core';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import httpUrlencodeBodyParser from '@middy/http-urlencode-body-parser';
import { ApiFailure, bodyTooLarge, malformedBody, unsupportedMediaType } from '../failures.ts';
import { invalidInput } from '#shared/errors.ts';
import type { ApiContext, ApiEvent, ApiResult, RequestBody } from '../types.ts';
import { companionModule } from '#shared/companion.ts';

type ApiRequest = Request<ApiEvent, ApiResult, Error, ApiContext>;
type Parse = (request: ApiRequest) => unknown;

/** The @middy parsers, chosen here by media type (so a quoted multipart boundary works too). */
const parsers: Record<string, { parse: Parse; malformed: string }> = {
  'application/json': {
    parse: httpJsonBodyParser({ disableContentTypeCheck: true }).before as Parse,
    malformed: malformedBody.json,
  },
  'application/x-www-form-urlencoded': {
    parse: httpUrlencodeBodyParser({ disableContentTypeCheck: true }).before as Parse,
    malformed: malformedBody.form,
  },
  'multipart/form-data': {
    parse: async (request) => (await multipartParser())(request),
    malformed: malformedBody.multipart,
  },
};

let multipart: Promise<Parse> | undefined;

/**
 * The name of the multipart parser's companion file beside a deployed bundle, set by esbuild's
 * `define` (infra/aws/service-function.ts bundles multipart.ts into it); unset when running from
 * the sources.
 */
export const MULTIPART_COMPANION_GLOBAL = 'HTTP_MULTIPART_COMPANION';
declare const HTTP_MULTIPART_COMPANION: string | undefined;

/** The multipart parser (with busboy) is loaded by the first multipart body: most functions never see one. */
function multipartParser(): Promise<Parse> {
  multipart ??= (
    typeof HTTP_MULTIPART_COMPANION === 'string'
      ? companionModule<typeof import('./multipart.ts')>(HTTP_MULTIPART_COMPANION)
      : import('./multipart.ts')
  ).then((module) => module.multipartParser as Parse);
  return multipart;
}

/**
 * Parses JSON, url-encoded and multipart bodies (base64 or not) into `context.body`, and on a
 * route that takes a CSV document (`csvField`) a text/csv body as that field; a missing or
 * empty body is `{}` whatever the Content-Type claims. Oversized, malformed and non-object bodies
 * are refused before the handler runs.
 */
export const body = (options: {
  maxBytes: number;
  /** The route's CSV field, asked for only when a text/csv body comes (its input is built on first use). */
  csvField?: () => string | undefined;
}): MiddlewareObj<ApiEvent, ApiResult, Error, ApiContext> => ({
  before: async (request) => {
    const { body: raw, isBase64Encoded } = request.event;
    request.context.body = {};
    if (raw === undefined || raw === null || raw === '') return;
    if (decodedLength(raw, isBase64Encoded) > options.maxBytes) throw bodyTooLarge(options.maxBytes);

    const type = mediaType(request.event.headers?.['content-type']);
    // A route that takes a CSV document reads a text/csv body as that one field.
    const csvField = type === 'text/csv' ? options.csvField?.() : undefined;
    if (csvField) {
      request.context.body = { [csvField]: isBase64Encoded ? Buffer.from(raw, 'base64').toString('utf8') : raw };
      return;
    }
    const parser = Object.hasOwn(parsers, type) ? parsers[type] : undefined;
    if (!parser) throw unsupportedMediaType();
    try {
      await parser.parse(request);
    } catch (error) {
      if ((error as { statusCode?: number }).statusCode === 413) throw bodyTooLarge(options.maxBytes);
      throw new ApiFailure(parser.malformed, 400);
    }
    const parsed: unknown = request.event.body;
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      throw invalidInput(malformedBody.notAnObject);
    }
    request.context.body = parsed as RequestBody;
  },
});

function mediaType(contentType: string | undefined): string {
  const essence = ((contentType ?? '').split(';', 1)[0] ?? '').trim().toLowerCase();
  return /^application\/[\w.-]+\+json$/.test(essence) ? 'application/json' : essence;
}

function decodedLength(raw: string, isBase64Encoded: boolean): number {
  if (!isBase64Encoded) return Buffer.byteLength(raw, 'utf8');
  const padding = raw.endsWith('==') ? 2 : raw.endsWith('=') ? 1 : 0;
  return Math.floor((raw.length * 3) / 4) - padding;
}
