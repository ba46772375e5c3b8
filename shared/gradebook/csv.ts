/**
 * The one CSV writer of gradebooks (the admin's export and `POST …/gradebook/exports`): RFC 4180
 * (comma, CRLF, a field quoted when it holds a comma, quote, CR or LF, a quote doubled), with every
 * text cell safe to open in a spreadsheet.
 */

/** A cell's value: numbers are written as numbers, null and undefined as an empty cell. */
export type CsvValue = string | number | boolean | null | undefined;

/** Text a spreadsheet reads as a formula (or as one after trimming a tab or carriage return). */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * One cell. Text beginning with `=`, `+`, `-`, `@`, a tab or a carriage return gets a leading `'`,
 * so that a spreadsheet shows it as text rather than running it (a name like `=HYPERLINK(…)` is a
 * student's to choose); numbers are never text, so a negative score stays a number. Pure.
 */
export function csvCell(value: CsvValue): string {
  if (value === null || value === undefined) return '';
  const text = String(value);
  const safe = typeof value === 'string' && FORMULA_START.test(text) ? `'${text}` : text;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** One record, ended by CRLF. Pure. */
export const csvLine = (values: readonly CsvValue[]): string => `${values.map(csvCell).join(',')}\r\n`;
