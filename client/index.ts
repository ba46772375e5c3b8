/**
 * A small typed client for frontends: openapi-fetch over the types openapi-typescript generated
 * from the API's OpenAPI document (schema.generated.ts). Every path, parameter, body and answer is
 * typed; `success` unwraps an envelope. Copy this folder into a frontend, or import it from here.
 */
import createClient, { type Client, type ClientOptions } from 'openapi-fetch';
import type { components, paths } from './schema.generated.ts';

export type { components, paths, webhooks } from './schema.generated.ts';
export type Schemas = components['schemas'];

export type ApiClient = Client<paths>;

export interface ApiClientOptions extends Omit<ClientOptions, 'baseUrl'> {
  /** Where the API is, without `/api` (e.g. `https://api.example.edu`; locally `http://localhost:3000`). */
  readonly baseUrl: string;
  /** The token to send as `Authorization`, read before every request (undefined: none). */
  readonly token?: () => string | undefined;
}

export function createApiClient({ token, ...options }: ApiClientOptions): ApiClient {
  const client = createClient<paths>(options);
  client.use({
    onRequest({ request }) {
      const value = token?.();
      if (value && !request.headers.has('Authorization')) request.headers.set('Authorization', value);
      return request;
    },
  });
  return client;
}

type Envelope = { readonly status: 'success'; readonly data: unknown } | { readonly status: 'fail' | 'error'; readonly message: string };

/** A `fail` or `error` envelope (or an answer that is not an envelope), thrown by `success`. */
export class ApiError extends Error {
  readonly status: 'fail' | 'error' | 'http';
  readonly httpStatus: number;
  readonly envelope: unknown;

  constructor(message: string, status: ApiError['status'], httpStatus: number, envelope: unknown) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.httpStatus = httpStatus;
    this.envelope = envelope;
  }
}

/**
 * The `data` of a success envelope, from what an openapi-fetch call resolves to (with or without
 * `Prefer: http-status`); throws ApiError with the envelope's message otherwise.
 */
export function success<E extends Envelope>(result: {
  data?: E;
  error?: unknown;
  response: Response;
}): Extract<E, { status: 'success' }>['data'] {
  const envelope = (result.data ?? result.error) as Envelope | undefined;
  if (envelope?.status === 'success') return envelope.data as Extract<E, { status: 'success' }>['data'];
  const status = envelope?.status === 'fail' || envelope?.status === 'error' ? envelope.status : 'http';
  const message = envelope && 'message' in envelope ? envelope.message : `HTTP ${result.response.status}`;
  throw new ApiError(message, status, result.response.status, envelope);
}
