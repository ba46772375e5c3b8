/**
 * A request the service refuses: rendered as a `fail` envelope. `httpStatus` is used only when
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

export const invalidInput = (message: string) => new ApiFailure(message, 400);

export const unauthenticated = () =>
  new ApiFailure('Unauthenticated access. Please log in.', 401, {
    headers: { 'WWW-Authenticate': 'Bearer' },
  });

export const forbidden = () => new ApiFailure("You don't have access to this endpoint.", 403);

export const notFound = (message: string) => new ApiFailure(message, 404);

export const endpointNotFound = () => notFound('Endpoint not found.');

export const methodNotAllowed = (allowed: readonly string[]) =>
  new ApiFailure('Method not allowed.', 405, { headers: { Allow: allowed.join(', ') } });

export const conflict = (message: string) => new ApiFailure(message, 409);

export const unsupportedMediaType = () =>
  new ApiFailure('Unsupported Content-Type. Send application/json, application/x-www-form-urlencoded or multipart/form-data.', 415);

export const tooManyRequests = (message: string, retryAfterSeconds: number) =>
  new ApiFailure(message, 429, { headers: { 'Retry-After': String(retryAfterSeconds) } });

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
