/**
 * A paged answer: the page as the success `data`, and when another page follows, a `Link` header
 * (RFC 8288) to it, `<path?…&cursor=…>; rel="next"`: the request's own path (with an API Gateway
 * stage prefix, if any) and query, the cursor replaced. endpoint.ts sends the header with the
 * success envelope.
 */
import { pageOf, readPageRequest } from '#shared/paging.ts';
import type { ApiEvent } from './types.ts';

/** What a handler returns to answer `data` with response headers. */
export class WithHeaders {
  readonly data: unknown;
  readonly headers: Readonly<Record<string, string>>;
  constructor(data: unknown, headers: Readonly<Record<string, string>>) {
    this.data = data;
    this.headers = headers;
  }
}

/** The request's URL (root-relative) with `cursor` set to the next page's. */
export function nextPageUrl(url: Pick<ApiEvent, 'rawPath' | 'rawQueryString'>, cursor: string): string {
  const query = new URLSearchParams(url.rawQueryString);
  query.set('cursor', cursor);
  return `${url.rawPath}?${query.toString()}`;
}

/** `data`, with a `Link: <…>; rel="next"` header when `next` names a further page. */
export const paged = (url: Pick<ApiEvent, 'rawPath' | 'rawQueryString'>, data: unknown, next: string | null): unknown =>
  next === null ? data : new WithHeaders(data, { Link: `<${nextPageUrl(url, next)}>; rel="next"` });

/**
 * A list answered whole by default while it fits (the users and graders lists and a submission's
 * versions, which the reference's clients read whole), and paged when the request names a page
 * (`page_size` or `cursor`). A list too big for one answer is answered page by page all the same,
 * the first with its `Link`.
 */
export function wholeOrPaged<T>(
  request: { readonly url: Pick<ApiEvent, 'rawPath' | 'rawQueryString'>; readonly query: PageQuery },
  sorted: readonly T[],
  order: Order<T> & { readonly list: string; readonly keys: number; readonly accepts?: (position: readonly string[]) => boolean },
): unknown {
  const page = readPageRequest(request.query, { ...order, defaultSize: Number.POSITIVE_INFINITY });
  const { items, next } = pageOf(sorted, page, order);
  return paged(request.url, items, next);
}

type PageQuery = { readonly page_size?: string; readonly cursor?: string };
type Order<T> = Parameters<typeof pageOf<T>>[2];
