import { createTerm } from '#shared/data/terms.ts';
import { conflict, invalidInput } from '#shared/errors.ts';
import { isValidCode, type Term } from './course.ts';

/** Checks a term's fields; the first problem is thrown as a fail. */
export function termFrom(input: { termId?: string; name?: string; startDate?: string; endDate?: string }): Term {
  const { termId, name, startDate, endDate } = input;
  if (!termId || !name || !startDate || !endDate) {
    throw invalidInput('Term id, term name, start date and end date are all required.');
  }
  if (!isValidCode(termId)) throw invalidInput('The term id must be 1 to 64 lowercase letters, digits or underscores.');
  if (!name.trim()) throw invalidInput('The term name cannot be blank.');
  if (!isCalendarDate(startDate) || !isCalendarDate(endDate)) {
    throw invalidInput('Start and end dates must be dates of the form YYYY-MM-DD.');
  }
  if (startDate > endDate) throw invalidInput('The start date must not be after the end date.');
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
  if (!(await createTerm(term))) throw conflict('Term already exists.');
  return term;
}

export const termRecord = (term: Term) => ({
  term_id: term.termId,
  term_name: term.name,
  start_date: term.startDate,
  end_date: term.endDate,
});
