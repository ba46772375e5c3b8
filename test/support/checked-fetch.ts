import { checkAnswer, describeMismatch } from '#infra/answer-check.ts';

/** An answer of the API that its route's contract does not allow (see infra/answer-check.ts). */
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
    {
      httpStatus: response.status,
      contentType: response.headers.get('content-type'),
      body: await response.clone().text(),
      location: response.headers.get('location'),
    },
  );
  if (mismatch) throw new AnswerMismatchError(describeMismatch(mismatch));
  return response;
}
