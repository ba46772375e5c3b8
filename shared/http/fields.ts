import { invalidInput } from './failures.ts';
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
