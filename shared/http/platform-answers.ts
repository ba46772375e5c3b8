/**
 * The answers of a platform-facing route (LTI, OpenID Connect): a browser sent by an LMS gets what
 * those specifications say, a redirect with `Location` or an HTML page, never an envelope. A
 * refused request is a page with the refusal's status whose title is its message; a failure of
 * the service a page too, 503 with Retry-After when trying again may succeed. The request's query
 * and url-encoded form are read with the route's `input`, as other routes read theirs.
 */
import { createHash } from 'node:crypto';
import { maxBodyBytes } from '#shared/config.ts';
import { recordRequestWrites } from '#shared/data/request-writes.ts';
import { Refusal } from '#shared/errors.ts';
import { logger } from '#shared/logger.ts';
import { isTransient } from './middleware/envelope.ts';
import { bodyTooLarge, formOnly, refusalStatus, serviceFailedPage, serviceUnavailablePage } from './failures.ts';
import { parseInput, type Input } from './request.ts';
import type { RouteDefinition } from './routes.ts';
import type { ApiEvent, ApiResult } from './types.ts';

export type PlatformAnswer =
  | { readonly kind: 'redirect'; readonly status: 302 | 303; readonly location: string }
  | {
      readonly kind: 'page';
      readonly title: string;
      readonly lines: readonly string[];
      /** A static script the page runs (allowed by its hash alone, so nothing else injected would run). */
      readonly script?: string;
    };

/** A failure of something the service needs (a platform's keys unreachable): nothing was done, and trying again may succeed. */
export class ServiceUnavailable extends Error {
  override name = 'ServiceUnavailable';
}

export const RETRY_AFTER_SECONDS = 30;

/** What a platform-facing handler gets: the request's declared query and form fields, and the API's base URL. */
export interface PlatformRequest<Definition extends RouteDefinition> extends Pick<Input<Definition>, 'query' | 'body'> {
  /** The API's base URL on the host the request reached (`https://api.example.edu`). */
  readonly host: string | undefined;
  readonly forwardedProto: string | undefined;
}

/** The Lambda handler of a platform-facing route: `handle` answers a redirect or a page; a Refusal it throws becomes a page. */
export function platformEndpoint<const Definition extends RouteDefinition>(
  route: Definition,
  handle: (request: PlatformRequest<Definition>) => Promise<PlatformAnswer>,
) {
  return async (event: ApiEvent): Promise<ApiResult> => {
    try {
      const answer = await recordRequestWrites(async () => {
        const body = formOf(event);
        const input = parseInput(route, { query: event.queryStringParameters ?? {}, body });
        return handle({
          query: input.query,
          body: input.body,
          host: event.headers?.host ?? event.requestContext?.domainName,
          forwardedProto: event.headers?.['x-forwarded-proto'],
        });
      });
      if (answer.kind === 'redirect')
        return { statusCode: answer.status, headers: { Location: answer.location, 'Cache-Control': 'no-store' }, body: '' };
      return page(200, answer.title, answer.lines, {}, answer.script);
    } catch (error) {
      if (error instanceof Refusal) return page(refusalStatus[error.kind], error.message);
      if (error instanceof BodyRefused) return page(error.status, error.message);
      if (error instanceof ServiceUnavailable || isTransient(error))
        return page(503, serviceUnavailablePage, [], { 'Retry-After': String(RETRY_AFTER_SECONDS) });
      logger.error({
        message: 'Unhandled error',
        routeKey: event.routeKey,
        error: error instanceof Error ? error : new Error(String(error)),
      });
      return page(500, serviceFailedPage);
    }
  };
}

class BodyRefused extends Error {
  readonly status: 413 | 415;
  constructor(status: 413 | 415, message: string) {
    super(message);
    this.status = status;
  }
}

/** The url-encoded form of a POST (a GET's, or an empty body, is none); any other body is refused. */
function formOf(event: ApiEvent): Record<string, string> {
  if (!event.body) return {};
  const text = event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
  if (Buffer.byteLength(text) > maxBodyBytes()) throw new BodyRefused(413, bodyTooLarge(maxBodyBytes()).message);
  const type = (event.headers?.['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') throw new BodyRefused(415, formOnly);
  const fields: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(text)) fields[name] = value;
  return fields;
}

const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);

/** A small page naming what happened: its title is the message, each line a paragraph, then its script if it has one. */
export function page(
  status: number,
  title: string,
  lines: readonly string[] = [],
  headers: Record<string, string> = {},
  script?: string,
): ApiResult {
  const scriptHash = script === undefined ? undefined : createHash('sha256').update(script).digest('base64');
  const body = [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">',
    `<title>${escapeHtml(title)}</title></head>`,
    `<body><h1>${escapeHtml(title)}</h1>`,
    ...lines.map((line) => `<p>${escapeHtml(line)}</p>`),
    ...(script === undefined ? [] : [`<script>${script}</script>`]),
    '</body></html>',
  ].join('\n');
  return {
    statusCode: status,
    headers: {
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Security-Policy': scriptHash === undefined ? "default-src 'none'" : `default-src 'none'; script-src 'sha256-${scriptHash}'`,
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
      ...headers,
    },
    body,
  };
}

/** A page's title as the page says it (the answer check and the tests read it). */
export function pageTitle(html: string): string | undefined {
  const match = /<title>([^<]*)<\/title>/.exec(html);
  return match?.[1]?.replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)));
}
