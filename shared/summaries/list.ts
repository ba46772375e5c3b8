/**
 * `GET …/reports/summaries`, paged: a summary of a course with 40 released gradeables is
 * about 10 KB, so the whole list of a large course is far beyond Lambda's 6 MB. Pages hold
 * SUMMARIES_PAGE summaries by default (`page_size` 1–500, and never more than MAX_PAGE_BYTES of
 * JSON), in user id order; a cursor names the generation it was given out for, so a page never
 * mixes two runs.
 *
 * The page is read alongside the token check, before the course names its current generation:
 * from the cursor on, or from the course's first summary (generations sort by their time, and the
 * one before the current is removed once it is switched). When an older generation is still there,
 * the page is read again by its generation.
 */
import type { Course } from '#shared/courses/course.ts';
import { summariesPage, summaryEntries, type SummaryDocument, type SummaryEntry } from '#shared/data/summaries.ts';
import { USER_ID } from '#shared/ids.ts';
import { encodeCursor, MAX_PAGE_BYTES, readPageRequest, type PageRequest } from '#shared/paging.ts';
import { summariesRegenerated } from './failures.ts';
import { SUMMARIES_PAGE } from './page.ts';

export interface SummariesPage {
  readonly generated_at: string | null;
  readonly summaries: SummaryDocument[];
  readonly next_cursor: string | null;
}

type Query = { readonly page_size?: string; readonly cursor?: string };

const pageRequest = (query: Query): PageRequest =>
  readPageRequest(query, {
    list: 'summaries list',
    defaultSize: SUMMARIES_PAGE,
    keys: 2,
    accepts: ([generation = '', userId = '']) => /^[0-9TZ]+-[0-9a-f]{6}$/.test(generation) && USER_ID.test(userId),
  });

/** The summaries read alongside the token check, and from where. */
export interface EarlyPage {
  readonly fromStart: boolean;
  readonly entries: readonly SummaryEntry[];
  readonly exhausted: boolean;
}

/** Read alongside the token check: the entries the asked page is cut from (none for a page request refused later). */
export async function summaryEntriesAsked(course: { term: string; course: string }, query: Query): Promise<EarlyPage | undefined> {
  let page: PageRequest;
  try {
    page = pageRequest(query);
  } catch {
    return undefined;
  }
  const [generation, userId] = page.after ?? [];
  const after = generation !== undefined && userId !== undefined ? { generation, userId } : undefined;
  const read = await summaryEntries(course.term, course.course, { after, size: page.size, maxBytes: MAX_PAGE_BYTES });
  return { fromStart: after === undefined, ...read };
}

/**
 * One page of `generation` cut from entries read in key order, as summariesPage reads it; undefined
 * when they cannot tell it (an older generation came first). Pure.
 */
export function pageOfGeneration(
  early: EarlyPage,
  generation: string,
  page: { readonly size: number; readonly maxBytes: number },
): { summaries: SummaryDocument[]; more: boolean } | undefined {
  const { entries } = early;
  if (early.fromStart && entries[0] !== undefined && entries[0].generation < generation) return undefined;
  const documents: string[] = [];
  let bytes = 2;
  for (const entry of entries) {
    if (entry.generation !== generation) return { summaries: parse(documents), more: false };
    bytes += Buffer.byteLength(entry.document) + 1;
    if (documents.length === page.size || (documents.length > 0 && bytes > page.maxBytes))
      return { summaries: parse(documents), more: true };
    documents.push(entry.document);
  }
  return early.exhausted ? { summaries: parse(documents), more: false } : undefined;
}

const parse = (documents: readonly string[]) => documents.map((document) => JSON.parse(document) as SummaryDocument);

export async function listSummaries(course: Course, query: Query, early?: EarlyPage): Promise<SummariesPage> {
  const page = pageRequest(query);
  const current = course.summaries;
  const [generation, after] = page.after ?? [];
  if (generation !== undefined && generation !== current?.generation) throw summariesRegenerated();
  if (!current) return { generated_at: null, summaries: [], next_cursor: null };
  const bounds = { size: page.size, maxBytes: MAX_PAGE_BYTES };
  const { summaries, more } =
    (early && pageOfGeneration(early, current.generation, bounds)) ??
    (await summariesPage(course.term, course.course, current.generation, { after, ...bounds }));
  const last = summaries.at(-1);
  return {
    generated_at: current.generatedAt,
    summaries,
    next_cursor: more && last ? encodeCursor([current.generation, last.user_id]) : null,
  };
}
