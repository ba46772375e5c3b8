/**
 * Why the service refuses a request, said by the domain without knowing about HTTP: the HTTP
 * layer renders a Refusal as a `fail` envelope (shared/http/failures.ts maps its kind to a
 * status), the admin command line as its own message. The message is what the caller reads, in
 * the reference system's words where it has them.
 */
export type RefusalKind =
  'invalid' | 'unauthenticated' | 'forbidden' | 'not-found' | 'conflict' | 'unprocessable' | 'too-large' | 'too-many-requests';

export class Refusal extends Error {
  readonly kind: RefusalKind;
  /** Sent as the fail envelope's `data` (for example every problem of a gradeable). */
  readonly data: unknown;
  /** For `too-many-requests`: when trying again may succeed. */
  readonly retryAfterSeconds: number | undefined;

  constructor(kind: RefusalKind, message: string, options: { data?: unknown; retryAfterSeconds?: number } = {}) {
    super(message);
    this.name = 'Refusal';
    this.kind = kind;
    this.data = options.data;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}

export const invalidInput = (message: string) => new Refusal('invalid', message);

export const forbidden = (message = "You don't have access to this endpoint.") => new Refusal('forbidden', message);

export const notFound = (message: string) => new Refusal('not-found', message);

export const conflict = (message: string) => new Refusal('conflict', message);

export const tooManyRequests = (message: string, retryAfterSeconds: number) =>
  new Refusal('too-many-requests', message, { retryAfterSeconds });
