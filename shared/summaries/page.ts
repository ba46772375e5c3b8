/**
 * Summaries per page of `GET …/reports/summaries` when `page_size` is left out: a summary of a
 * course with 40 released gradeables is about 10 KB, so a page is about 1 MB. Apart from
 * list.ts so that the OpenAPI function (which renders it) bundles no data access.
 */
export const SUMMARIES_PAGE = 100;
