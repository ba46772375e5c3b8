import { Refusal, type RefusalKind } from '#shared/errors.ts';

/**
 * A request the HTTP layer refuses (routing, media type, body size, the token check): rendered as
 * a `fail` envelope. `httpStatus` is used only when
 * the client asked for real status codes (`Prefer: http-status`).
 */
export class ApiFailure extends Error {
  readonly httpStatus: number;
  readonly data: unknown;
  readonly headers: Readonly<Record<string, string>>;

  constructor(message: string, httpStatus = 400, options: { data?: unknown; headers?: Record<string, string> } = {}) {
    super(message);
    this.name = 'ApiFailure';
    this.httpStatus = httpStatus;
    this.data = options.data;
    this.headers = options.headers ?? {};
  }
}

export const unauthenticated = () =>
  new ApiFailure('Unauthenticated access. Please log in.', 401, {
    headers: { 'WWW-Authenticate': 'Bearer' },
  });

export const endpointNotFound = () => new ApiFailure('Endpoint not found.', 404);

export const methodNotAllowed = (allowed: readonly string[]) =>
  new ApiFailure('Method not allowed.', 405, { headers: { Allow: allowed.join(', ') } });

export const unsupportedMediaType = () =>
  new ApiFailure('Unsupported Content-Type. Send application/json, application/x-www-form-urlencoded or multipart/form-data.', 415);

/** The body parser's messages: a body that is not of its Content-Type, or not an object. */
export const malformedBody = {
  json: 'The request body is not valid JSON.',
  form: 'The request body is not a valid url-encoded form.',
  multipart: 'The request body is not valid multipart/form-data.',
  notAnObject: 'The request body must be a JSON object.',
} as const;
export const BODY_FAILS: readonly string[] = Object.values(malformedBody);

/** The reference system's wording, with the limit written the way PHP writes post_max_size. */
export const bodyTooLarge = (limitBytes: number) =>
  new ApiFailure(`POST request exceeds maximum size of ${formatByteLimit(limitBytes)}`, 413);

export function formatByteLimit(bytes: number): string {
  const units: [number, string][] = [
    [1024 ** 3, 'G'],
    [1024 ** 2, 'M'],
    [1024, 'K'],
  ];
  for (const [size, suffix] of units) {
    if (bytes % size === 0) return `${bytes / size}${suffix}`;
  }
  return String(bytes);
}

/** The titles of a platform-facing route's pages when the service failed (platform-answers.ts): for a moment (503), or outright. */
export const serviceUnavailablePage = 'The service could not finish this request for a moment; try again.';
export const serviceFailedPage = 'The service failed; nothing was done.';
/** A platform-facing route takes a form only, as browsers post it. */
export const formOnly = 'Unsupported Content-Type. Send application/x-www-form-urlencoded.';

/** The HTTP status of each kind of refusal (sent with `Prefer: http-status`). */
export const refusalStatus: Readonly<Record<RefusalKind, number>> = {
  invalid: 400,
  unauthenticated: 401,
  forbidden: 403,
  'not-found': 404,
  conflict: 409,
  'too-large': 413,
  unprocessable: 422,
  'too-many-requests': 429,
  unavailable: 503,
  'precondition-failed': 412,
};

/** The fail answer of a domain refusal: its status (sent with `Prefer: http-status`) and headers. */
export function failureOf(refusal: Refusal): ApiFailure {
  const headers = refusal.retryAfterSeconds === undefined ? undefined : { 'Retry-After': String(refusal.retryAfterSeconds) };
  return new ApiFailure(refusal.message, refusalStatus[refusal.kind], { data: refusal.data, ...(headers ? { headers } : {}) });
}
