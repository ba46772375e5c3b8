/** The gradebook's fails (declared once: the code throws them, the API contract lists them). */
import { failure } from '#shared/errors.ts';

export const badLimit = failure('invalid', 'The limit must be a whole number from 1 to {max}.');
export const badCursor = failure('invalid', 'The cursor is not one this gradebook gave out.');
