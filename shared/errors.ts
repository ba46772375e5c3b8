/**
 * Why the service refuses a request, said by the domain without knowing about HTTP: the HTTP
 * layer renders a Refusal as a `fail` envelope (shared/http/failures.ts maps its kind to a
 * status), the admin command line as its own message. The message is what the caller reads, in
 * the reference system's words where it has them.
 */
export type RefusalKind =
  | 'invalid'
  | 'unauthenticated'
  | 'forbidden'
  | 'not-found'
  | 'conflict'
  | 'unprocessable'
  | 'too-large'
  | 'too-many-requests'
  /** An outside service the request needs (an LMS) cannot answer for now: nothing was done, and a later attempt may succeed. */
  | 'unavailable'
  /** A conditional request (If-Match) whose condition no longer holds. */
  | 'precondition-failed';

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

export const forbidden = (message?: string) => (message === undefined ? accessDenied() : new Refusal('forbidden', message));

export const notFound = (message: string) => new Refusal('not-found', message);

export const conflict = (message: string) => new Refusal('conflict', message);

export const tooManyRequests = (message: string, retryAfterSeconds: number) =>
  new Refusal('too-many-requests', message, { retryAfterSeconds });

/** How long to wait, as a message says it: `1 second`, `15 seconds`. */
export const inSeconds = (seconds: number): string => `${seconds} ${seconds === 1 ? 'second' : 'seconds'}`;

type Placeholders<T extends string> = T extends `${string}{${infer Name}}${infer Rest}` ? Name | Placeholders<Rest> : never;
type Values<T extends string> = [Placeholders<T>] extends [never] ? [] : [values: Readonly<Record<Placeholders<T>, string | number>>];

/** The most characters of a caller's value a message repeats (the longest id is 64). */
export const ECHOED_LENGTH = 64;

/** The placeholders of a message filled with a value as the caller sent it, each with the most characters shown of it. */
export type Echoes<T extends string> = Readonly<Partial<Record<Placeholders<T>, number>>>;

/**
 * A fail the service can answer with, declared once: its kind and message, `{name}` marking a
 * part filled in per request. Calling it makes the Refusal to throw; `text` fills in the message
 * alone (for rules that return their problem). The API contract lists these same declarations, so
 * what the code answers and what the contract documents cannot drift apart. A part that repeats
 * what the caller sent (`echoes`) is cut here, so no value of any length comes back whole.
 */
export interface Failure<T extends string = string> {
  (...values: Values<T>): Refusal;
  readonly text: (...values: Values<T>) => string;
  readonly kind: RefusalKind;
  readonly template: T;
}

/** Every Failure declared so far (in the order the modules declaring them were loaded). */
export const declaredFailures: Failure[] = [];

export function failure<const T extends string>(kind: RefusalKind, template: T, echoes?: Echoes<T>): Failure<T> {
  const cut = (echoes ?? {}) as Readonly<Record<string, number | undefined>>;
  const text = (...values: Values<T>): string => {
    const given = (values[0] ?? {}) as Readonly<Record<string, string | number>>;
    return template.replace(/\{([^{}]+)\}/g, (whole, name: string) =>
      Object.hasOwn(given, name) ? String(given[name]).slice(0, cut[name] ?? Infinity) : whole,
    );
  };
  const declared = Object.assign((...values: Values<T>) => new Refusal(kind, text(...values)), { text, kind, template });
  declaredFailures.push(declared as unknown as Failure);
  return declared;
}

/** The reference's answer to a caller without the role a route needs. */
export const accessDenied = /* @__PURE__ */ failure('forbidden', "You don't have access to this endpoint.");
