import { startLocalApi, type LocalApi } from '#infra/local/server.ts';
import { checkedFetch } from './checked-fetch.ts';

export { AnswerMismatchError, checkedFetch } from './checked-fetch.ts';

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
export async function startTestApi(
  options: {
    workers?: number;
    functionTimeoutMs?: number;
    checkAnswers?: boolean;
    outboxRelayMs?: number;
    courseJobSweepMs?: number;
    corsOrigins?: string[];
  } = {},
): Promise<TestApi> {
  const server: LocalApi = await startLocalApi({
    port: 0,
    workers: options.workers ?? 1,
    functionTimeoutMs: options.functionTimeoutMs,
    checkAnswers: options.checkAnswers,
    outboxRelayMs: options.outboxRelayMs,
    // Only when a test asks for it: a sweep every 30 s would add requests to tests that count them.
    courseJobSweepMs: options.courseJobSweepMs ?? 0,
    corsOrigins: options.corsOrigins,
  });
  const call: TestApi['call'] = async (method, path, init = {}) => {
    // A platform-facing route's redirect is an answer of its own, not followed.
    const response = await checkedFetch(`${server.url}${path}`, { method, headers: init.headers, body: init.body, redirect: 'manual' });
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
