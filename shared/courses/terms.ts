import { allTerms, createTerm } from '#shared/data/terms.ts';
import { isValidCode, type Term } from './course.ts';
import { badTermDates, badTermId, blankTermName, reservedTermId, termEndsBeforeStart, termExistsAlready } from './failures.ts';

/**
 * Codes a term cannot have: a course's paths begin with its term's code, and these first
 * segments begin routes of their own (`/api/users/{user_id}/audit` would answer for the course
 * audit trail of a term named `users`; `/api/courses/{semester}/{course}/config` for the late
 * days of a user named `config` in a term named `courses`; `/api/lti/registrations/{registration_id}`
 * for a course named `registrations` in a term named `lti`).
 */
export const RESERVED_TERM_CODES: ReadonlySet<string> = new Set(['courses', 'users', 'lti']);

/** Checks a term's fields (each sent and not empty: the route requires them); the first problem is thrown as a fail. */
export function termFrom(input: { termId: string; name: string; startDate: string; endDate: string }): Term {
  const { termId, name, startDate, endDate } = input;
  if (!isValidCode(termId)) throw badTermId();
  if (RESERVED_TERM_CODES.has(termId)) throw reservedTermId({ term_id: termId });
  if (!name.trim()) throw blankTermName();
  if (!isCalendarDate(startDate) || !isCalendarDate(endDate)) {
    throw badTermDates();
  }
  if (startDate > endDate) throw termEndsBeforeStart();
  return { termId, name: name.trim(), startDate, endDate };
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A calendar date `YYYY-MM-DD` that exists. */
export function isCalendarDate(value: string): boolean {
  const match = DATE.exec(value);
  if (!match) return false;
  const [year, month, day] = match.slice(1).map(Number) as [number, number, number];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

export async function addTerm(term: Term): Promise<Term> {
  if (!(await createTerm(term))) throw termExistsAlready();
  return term;
}

export const termRecord = (term: Term) => ({
  term_id: term.termId,
  term_name: term.name,
  start_date: term.startDate,
  end_date: term.endDate,
});

/** Newest first: by start date, then by term code, both descending. */
export const newestFirst = (a: Term, b: Term): number =>
  b.startDate.localeCompare(a.startDate) || (a.termId < b.termId ? 1 : a.termId > b.termId ? -1 : 0);

/** Every term, newest first. */
export const listTerms = async () => (await allTerms()).sort(newestFirst).map(termRecord);
