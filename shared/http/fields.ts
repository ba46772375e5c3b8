import { invalidInput } from '#shared/errors.ts';
import type { RequestBody } from './types.ts';

/**
 * A string field of a JSON or form body: undefined when absent; a number, array, object or file
 * where a string belongs is refused with a message naming the field.
 */
export function stringField(body: RequestBody, name: string, options: { maxLength: number }): string | undefined {
  const value = body[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw invalidInput(`The field ${name} must be a string.`);
  if (value.length > options.maxLength) {
    throw invalidInput(`The field ${name} must be at most ${options.maxLength} characters long.`);
  }
  return value;
}

const TRUE_VALUES = new Set<unknown>([true, 'true', 'True', 'TRUE', '1', 1]);
const FALSE_VALUES = new Set<unknown>([false, 'false', 'False', 'FALSE', '0', 0, '']);

/** True for the loose spellings of true (`true`, `"true"`, `"True"`, `"1"`, `1`). */
export const isTrue = (value: unknown): boolean => TRUE_VALUES.has(value);

/** A loose boolean as the reference's clients send it (`true`, `"true"`, `"True"`, `"1"`, `1`). */
export function booleanField(body: RequestBody, name: string): boolean | undefined {
  const value = body[name];
  if (value === undefined || value === null) return undefined;
  if (TRUE_VALUES.has(value)) return true;
  if (FALSE_VALUES.has(value)) return false;
  throw invalidInput(`The field ${name} must be true or false.`);
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
