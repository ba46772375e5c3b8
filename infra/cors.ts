/**
 * Which browser pages may call the API and post files to the submissions bucket, and what the
 * answers tell the browser: one set of rules for the stack (API Gateway's CORS configuration, the
 * bucket's CORS rule) and for `npm start` (infra/local/), which answers as those would.
 */
import { routeKeys, routes } from '#functions/definitions.ts';
import type { RouteDefinition } from '#shared/http/routes.ts';

export interface CorsRules {
  /** The allowed origins; `*` allows every one. Empty: no CORS at all. */
  readonly origins: readonly string[];
  readonly methods: readonly string[];
  /** Request headers a page may send; `*`: whichever it asks for. */
  readonly headers: readonly string[];
  /** Answer headers a page's script may read. */
  readonly exposed: readonly string[];
  readonly maxAgeSeconds: number;
}

/** How long a browser may keep a preflight's answer. */
const MAX_AGE_SECONDS = 3600;

/**
 * The request headers a browser may send: the ones every route reads (token, body type, the
 * status preference, conditional reads) and every header some route declares as an input, so a
 * frontend can send an Idempotency-Key or an If-Match without a preflight failure.
 */
function apiRequestHeaders(): string[] {
  const declared = Object.values<RouteDefinition>(routes).flatMap((definition) => Object.keys(definition.input?.().headers ?? {}));
  return [...new Set(['authorization', 'content-type', 'prefer', 'if-none-match', ...declared.map((name) => name.toLowerCase())])];
}

/** The API's rules: the route table's methods, the headers routes read, the headers a client reads back. */
export function apiCorsRules(origins: readonly string[]): CorsRules {
  return {
    origins,
    methods: [...new Set(routeKeys.map((key) => key.method))],
    headers: apiRequestHeaders(),
    exposed: ['preference-applied', 'retry-after', 'etag', 'link'],
    maxAgeSeconds: MAX_AGE_SECONDS,
  };
}

/** The submissions bucket's rule: a presigned POST from a browser, and a presigned GET read by a script of the page. */
export function bucketCorsRules(origins: readonly string[]): CorsRules {
  return { origins, methods: ['POST', 'GET'], headers: ['*'], exposed: ['etag', 'location'], maxAgeSeconds: MAX_AGE_SECONDS };
}

/** What CORS needs of a request: its method and the headers a browser sets. */
export interface CorsRequest {
  readonly method: string;
  readonly origin?: string;
  /** `Access-Control-Request-Method`: present on a preflight only. */
  readonly requestMethod?: string;
  /** `Access-Control-Request-Headers`. */
  readonly requestHeaders?: string;
}

export type CorsAnswer =
  /** Not a CORS request, or CORS is off: answered as it would be without CORS. */
  | { readonly kind: 'none' }
  /** A preflight: answered here, with `headers` (none when the origin or method is not allowed). */
  | { readonly kind: 'preflight'; readonly allowed: boolean; readonly headers: Record<string, string> }
  /** A request from a page: its answer gets `headers` (none when the origin is not allowed). */
  | { readonly kind: 'actual'; readonly headers: Record<string, string> };

/**
 * What the rules answer `request`: a preflight is one (OPTIONS with Access-Control-Request-Method);
 * an allowed origin gets itself back (or `*` when every origin is allowed), a preflight the
 * methods, the headers (the asked-for ones when any is allowed) and the max age, an actual request
 * the exposed headers. An origin not allowed gets no CORS header, so the browser keeps the answer
 * from the page; with no origins there is no CORS at all.
 */
export function corsAnswer(rules: CorsRules, request: CorsRequest): CorsAnswer {
  if (rules.origins.length === 0 || request.origin === undefined) return { kind: 'none' };
  const anyOrigin = rules.origins.includes('*');
  const allowedOrigin = anyOrigin || rules.origins.includes(request.origin);
  const origin: Record<string, string> = anyOrigin
    ? { 'Access-Control-Allow-Origin': '*' }
    : { 'Access-Control-Allow-Origin': request.origin, Vary: 'Origin' };
  if (request.method === 'OPTIONS' && request.requestMethod !== undefined) {
    const allowed = allowedOrigin && rules.methods.includes(request.requestMethod.toUpperCase());
    if (!allowed) return { kind: 'preflight', allowed: false, headers: {} };
    const asked = request.requestHeaders?.trim();
    const headers = rules.headers.includes('*') ? asked : rules.headers.join(',');
    return {
      kind: 'preflight',
      allowed: true,
      headers: {
        ...origin,
        'Access-Control-Allow-Methods': rules.methods.join(','),
        ...(headers ? { 'Access-Control-Allow-Headers': headers } : {}),
        'Access-Control-Max-Age': String(rules.maxAgeSeconds),
      },
    };
  }
  if (!allowedOrigin) return { kind: 'actual', headers: {} };
  return { kind: 'actual', headers: { ...origin, 'Access-Control-Expose-Headers': rules.exposed.join(',') } };
}
