import { startLocalApi, type LocalApi } from '#infra/local/server.ts';
import { checkAnswer, describeMismatch } from '#shared/http/answer-check.ts';

/** An answer of the API that its route's contract does not allow (see shared/http/answer-check.ts). */
export class AnswerMismatchError extends Error {
  override name = 'AnswerMismatchError';
}

/**
 * `fetch`, for requests to the API under test: every answer is checked against its route's
 * contract (a success's `data` against the route's schema, a fail's message against those it
 * declares), and one that does not keep it fails the test. Tests call the API through this (or
 * the TestApi below, or the typed client given it as its `fetch`), never through a bare `fetch`.
 */
export async function checkedFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const request = new Request(input, init);
  // eslint-disable-next-line no-restricted-globals -- the one call that checks what it gets
  const response = await fetch(request);
  const mismatch = checkAnswer(
    { method: request.method, path: new URL(request.url).pathname },
    { httpStatus: response.status, contentType: response.headers.get('content-type'), body: await response.clone().text() },
  );
  if (mismatch) throw new AnswerMismatchError(describeMismatch(mismatch));
  return response;
}

export interface Answer {
  readonly httpStatus: number;
  readonly headers: Headers;
  /** The parsed envelope (empty for an answer that is not JSON: the reference page and its assets). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any route's data, read freely by the tests, which check its shape with expect
  readonly json: { status: string; data?: any; message?: string; code?: string };
  readonly text: string;
}

export interface TestApi {
  readonly url: string;
  readonly server: LocalApi;
  call(method: string, path: string, init?: { headers?: Record<string, string>; body?: RequestInit['body'] }): Promise<Answer>;
  postJson(path: string, body: unknown, headers?: Record<string, string>): Promise<Answer>;
  postForm(path: string, fields: Record<string, string>, headers?: Record<string, string>): Promise<Answer>;
  get(path: string, headers?: Record<string, string>): Promise<Answer>;
  close(): Promise<void>;
}

/** The local API (the same server `npm start` runs) on a free port, called over real HTTP. */
export async function startTestApi(options: { workers?: number; functionTimeoutMs?: number } = {}): Promise<TestApi> {
  const server: LocalApi = await startLocalApi({ port: 0, workers: options.workers ?? 1, functionTimeoutMs: options.functionTimeoutMs });
  const call: TestApi['call'] = async (method, path, init = {}) => {
    const response = await checkedFetch(`${server.url}${path}`, { method, headers: init.headers, body: init.body });
    const text = await response.text();
    const isJson = /^application\/json/.test(response.headers.get('content-type') ?? 'application/json');
    return { httpStatus: response.status, headers: response.headers, json: isJson && text !== '' ? JSON.parse(text) : {}, text };
  };
  return {
    url: server.url,
    server,
    call,
    get: (path, headers) => call('GET', path, { headers }),
    postJson: (path, body, headers = {}) =>
      call('POST', path, { headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(body) }),
    postForm: (path, fields, headers = {}) => call('POST', path, { headers, body: new URLSearchParams(fields) }),
    close: () => server.close(),
  };
}
