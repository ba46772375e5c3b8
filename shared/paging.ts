/**
 * Paging the lists that grow with a course: the gradebook, the grade summaries, the users
 * and graders lists and a submission's versions. One format for all of them, the gradebook's: a
 * page size (`page_size`; the gradebook also reads its older name `limit`) of 1 to 500, and an
 * opaque `cursor`, the position of the previous page's last item (base64url of a JSON list of
 * strings), which the next page starts after. A cursor that does not decode to such a position is
 * refused with `The cursor is not one this … gave out.` A page also ends before its size once its
 * JSON reaches MAX_PAGE_BYTES, so no answer nears Lambda's 6 MB, whatever the items weigh.
 */
import { failure } from './errors.ts';

/** The largest page size anyone may ask for. */
export const MAX_PAGE_SIZE = 500;
/** A page size as written in the query (its value must also lie in 1…MAX_PAGE_SIZE). */
export const PAGE_SIZE = /^\d{1,4}$/;
export const MAX_CURSOR_LENGTH = 400;
/**
 * The most JSON a page's items may take (2.5 MiB). Lambda answers the body as a JSON string, so
 * even if every character of it were escaped the answer stays below Lambda's 6 MB (and API
 * Gateway's 10 MB); a page takes at least one item.
 */
export const MAX_PAGE_BYTES = 2.5 * 1024 * 1024;

export const badPageSize = /* @__PURE__ */ failure('invalid', 'The {field} must be a whole number from 1 to {max}.');
export const badCursor = /* @__PURE__ */ failure('invalid', 'The cursor is not one this {list} gave out.');

export interface PageRequest {
  /** Items per page. */
  readonly size: number;
  /** The position (sort keys) of the previous page's last item; undefined on the first page. */
  readonly after: readonly string[] | undefined;
}

/**
 * The page a request asks for: `page_size` (or `limit`) and `cursor`, a cursor naming a position of
 * `keys` strings. `list` names the list in the cursor's refusal.
 */
export function readPageRequest(
  query: { readonly page_size?: string; readonly limit?: string; readonly cursor?: string },
  options: {
    readonly list: string;
    readonly defaultSize: number;
    readonly keys: number;
    /** Whether a decoded position is one of this list's (e.g. a version number). */
    readonly accepts?: (position: readonly string[]) => boolean;
  },
): PageRequest {
  let size = options.defaultSize;
  const field = query.page_size !== undefined ? 'page_size' : 'limit';
  const written = query.page_size ?? query.limit;
  if (written !== undefined) {
    if (!PAGE_SIZE.test(written) || Number(written) < 1 || Number(written) > MAX_PAGE_SIZE) {
      throw badPageSize({ field, max: MAX_PAGE_SIZE });
    }
    size = Number(written);
  }
  if (query.cursor === undefined) return { size, after: undefined };
  return { size, after: decodeCursor(query.cursor, options) };
}

/** True when the request names a page (`page_size`, `limit` or `cursor`): lists answered whole by default then page. */
export const asksForPage = (query: { readonly page_size?: string; readonly limit?: string; readonly cursor?: string }): boolean =>
  query.page_size !== undefined || query.limit !== undefined || query.cursor !== undefined;

export const encodeCursor = (position: readonly string[]): string => Buffer.from(JSON.stringify(position)).toString('base64url');

function decodeCursor(
  cursor: string,
  options: { readonly list: string; readonly keys: number; readonly accepts?: (position: readonly string[]) => boolean },
): readonly string[] {
  const invalid = () => badCursor({ list: options.list });
  if (cursor.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(cursor)) throw invalid();
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(value) && value.length === options.keys && value.every((key) => typeof key === 'string')) {
      const position = value as string[];
      if (options.accepts?.(position) ?? true) return position;
    }
  } catch {
    // reported below
  }
  throw invalid();
}

export interface PageOf<T> {
  readonly items: T[];
  /** The cursor of the next page; null on the last. */
  readonly next: string | null;
}

/**
 * The page of `sorted` (in the list's order) after the request's position: at most `size` items,
 * ending early once their JSON reaches `maxBytes` (at least one item). `compare` orders an item
 * against a position as the list is sorted; `position` gives an item's.
 */
export function pageOf<T>(
  sorted: readonly T[],
  request: PageRequest,
  order: { readonly position: (item: T) => readonly string[]; readonly compare: (item: T, position: readonly string[]) => number },
  maxBytes = MAX_PAGE_BYTES,
): PageOf<T> {
  const after = request.after;
  const start = after ? sorted.findIndex((item) => order.compare(item, after) > 0) : 0;
  if (start < 0) return { items: [], next: null };
  const items = takeWithin(sorted.slice(start, start + request.size), maxBytes);
  const last = items.at(-1);
  const more = start + items.length < sorted.length;
  return { items, next: more && last !== undefined ? encodeCursor(order.position(last)) : null };
}

/** The leading items whose JSON (as a list) stays within maxBytes; at least the first. */
export function takeWithin<T>(items: readonly T[], maxBytes = MAX_PAGE_BYTES): T[] {
  let bytes = 2;
  let count = 0;
  for (const item of items) {
    bytes += Buffer.byteLength(JSON.stringify(item) ?? 'null') + 1;
    if (count > 0 && bytes > maxBytes) break;
    count++;
  }
  return items.slice(0, count);
}
