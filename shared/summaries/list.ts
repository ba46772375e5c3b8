/**
 * `GET …/reports/summaries`, paged (issue 17): a summary of a course with 40 released gradeables is
 * about 10 KB, so the whole list of a large course is far beyond Lambda's 6 MB. Pages hold
 * SUMMARIES_PAGE summaries by default (`page_size` 1–500, and never more than MAX_PAGE_BYTES of
 * JSON), in user id order; a cursor names the generation it was given out for, so a page never
 * mixes two runs.
 */
import type { Course } from '#shared/courses/course.ts';
import { summariesPage, type SummaryDocument } from '#shared/data/summaries.ts';
import { USER_ID } from '#shared/ids.ts';
import { encodeCursor, MAX_PAGE_BYTES, readPageRequest } from '#shared/paging.ts';
import { summariesRegenerated } from './failures.ts';
import { SUMMARIES_PAGE } from './page.ts';

export interface SummariesPage {
  readonly generated_at: string | null;
  readonly summaries: SummaryDocument[];
  readonly next_cursor: string | null;
}

export async function listSummaries(
  course: Course,
  query: { readonly page_size?: string; readonly cursor?: string },
): Promise<SummariesPage> {
  const page = readPageRequest(query, {
    list: 'summaries list',
    defaultSize: SUMMARIES_PAGE,
    keys: 2,
    accepts: ([generation = '', userId = '']) => /^[0-9TZ]+-[0-9a-f]{6}$/.test(generation) && USER_ID.test(userId),
  });
  const current = course.summaries;
  const [generation, after] = page.after ?? [];
  if (generation !== undefined && generation !== current?.generation) throw summariesRegenerated();
  if (!current) return { generated_at: null, summaries: [], next_cursor: null };
  const { summaries, more } = await summariesPage(course.term, course.course, current.generation, {
    after,
    size: page.size,
    maxBytes: MAX_PAGE_BYTES,
  });
  const last = summaries.at(-1);
  return {
    generated_at: current.generatedAt,
    summaries,
    next_cursor: more && last ? encodeCursor([current.generation, last.user_id]) : null,
  };
}
