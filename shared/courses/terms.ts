import { createTerm } from '#shared/data/terms.ts';
import { conflict, invalidInput } from '#shared/errors.ts';
import { isCalendarDate, stringField } from '#shared/http/fields.ts';
import type { RequestBody } from '#shared/http/types.ts';
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

export function termFromBody(body: RequestBody): Term {
  return termFrom({
    termId: stringField(body, 'term_id', { maxLength: 64 }),
    name: stringField(body, 'term_name', { maxLength: 100 }),
    startDate: stringField(body, 'start_date', { maxLength: 10 }),
    endDate: stringField(body, 'end_date', { maxLength: 10 }),
  });
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
