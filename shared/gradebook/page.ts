/** Paging the gradebook: the `limit` and `cursor` query parameters, and the cursors given out. */
import { badCursor, badLimit } from './failures.ts';

export const DEFAULT_PAGE = 100;
export const MAX_PAGE = 500;
/** A limit as written in the query (its value must also lie in 1…MAX_PAGE). */
export const PAGE_LIMIT = /^\d{1,4}$/;
export const MAX_CURSOR_LENGTH = 400;

export interface Page {
  readonly limit: number;
  readonly after: { readonly section: string; readonly user: string } | undefined;
}

/** `limit` (1–500, 100 by default) and `cursor` (the `next_cursor` of the previous page). */
export function readPage(query: { readonly limit?: string; readonly cursor?: string }): Page {
  let limit = DEFAULT_PAGE;
  if (query.limit !== undefined) {
    if (!PAGE_LIMIT.test(query.limit) || Number(query.limit) < 1 || Number(query.limit) > MAX_PAGE) {
      throw badLimit({ max: MAX_PAGE });
    }
    limit = Number(query.limit);
  }
  if (query.cursor === undefined) return { limit, after: undefined };
  return { limit, after: decodeCursor(query.cursor) };
}

export const encodeCursor = (row: { readonly registration_section: string; readonly user_id: string }): string =>
  Buffer.from(JSON.stringify([row.registration_section, row.user_id])).toString('base64url');

function decodeCursor(cursor: string): Page['after'] {
  const invalid = badCursor;
  if (cursor.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(cursor)) throw invalid();
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(value) && value.length === 2 && typeof value[0] === 'string' && typeof value[1] === 'string') {
      return { section: value[0], user: value[1] };
    }
  } catch {
    // reported below
  }
  throw invalid();
}
