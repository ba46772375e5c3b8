/**
 * Paging the gradebook: `page_size` (or its older name `limit`) and `cursor` (the `next_cursor` of
 * the previous page, also in the answer's `Link` header), in the format every paged list shares
 * (shared/paging.ts).
 */
import { pageOf as pageOfList, readPageRequest, type PageRequest } from '#shared/paging.ts';

export const DEFAULT_PAGE = 100;

/** Students per page of the course's gradebook (`GET …/gradebook`) when `page_size` is left out: each reads a submission per gradeable. */
export const COURSE_GRADEBOOK_PAGE = 50;

/** What a course gradebook cell says of the student's work: the active version's grading state, or no submission (`graded` for a complete TA grade without one). */
export const cellStatuses = ['graded', 'queued', 'grading', 'failed', 'superseded', 'no_submission'] as const;
export type CellStatus = (typeof cellStatuses)[number];

export type Page = PageRequest;

/** `page_size` or `limit` (1–500, 100 by default) and `cursor`: a position of [section, user id]. */
export const readPage = (query: { readonly page_size?: string; readonly limit?: string; readonly cursor?: string }): Page =>
  readPageRequest(query, { list: 'gradebook', defaultSize: DEFAULT_PAGE, keys: 2 });

/** The page of rows sorted by `compare` after the request's [section, user] position. */
export function pageOfRows<Row extends { readonly registration_section: string; readonly user_id: string }>(
  sorted: readonly Row[],
  page: Page,
  compare: (a: Pick<Row, 'registration_section' | 'user_id'>, b: Pick<Row, 'registration_section' | 'user_id'>) => number,
) {
  return pageOfList(sorted, page, {
    position: (row) => [row.registration_section, row.user_id],
    compare: (row, [section = '', user = '']) => compare(row, { registration_section: section, user_id: user }),
  });
}
