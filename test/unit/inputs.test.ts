import { describe, expect, it } from 'vitest';
import { Refusal } from '#shared/errors.ts';
import { parseInput } from '#functions/definitions.ts';
import { isMissing, missingFailure, required, text } from '#shared/http/fields.ts';

/** The first problem of a body, as the HTTP layer answers it, or the parsed fields. */
function body(name: Parameters<typeof parseInput>[0], fields: Record<string, unknown>) {
  try {
    return parseInput(name, { body: fields }).body;
  } catch (error) {
    if (error instanceof Refusal) return error.message;
    throw error;
  }
}

describe('declared inputs (shared/http/inputs.ts)', () => {
  it('read loose booleans as the reference clients send them', () => {
    const course = { course_semester: 'f26', course_title: 'c1', head_instructor: 'prof' };
    for (const value of [true, 'true', 'True', 'TRUE', '1', 1])
      expect(body('create-course', { ...course, copy_gradeables: value })).toEqual({ ...course, copy_gradeables: true });
    for (const value of [false, 'false', 'False', 'FALSE', '0', 0, ''])
      expect(body('create-course', { ...course, copy_gradeables: value })).toEqual({ ...course, copy_gradeables: false });
    expect(body('create-course', { copy_gradeables: 'maybe' })).toBe('The field copy_gradeables must be true or false.');
    // vcs_checkout is lenient: anything else is false, and the domain answers with the reference's message.
    expect(body('submit-vcs', { vcs_checkout: 'maybe', git_repo_id: 'x' })).toEqual({ vcs_checkout: false, git_repo_id: 'x' });
  });

  it('read lists from a JSON array, a repeated field or a comma-separated string', () => {
    const url = 'https://hooks.example.edu/';
    const events = (value: unknown) => body('create-webhook', { url, events: value });
    expect(events(['submission.graded', 'submission.failed'])).toEqual({ url, events: ['submission.graded', 'submission.failed'] });
    expect(events('submission.graded, submission.failed')).toEqual({ url, events: ['submission.graded', 'submission.failed'] });
    // An empty string is no list: events, which the route requires, is missing.
    expect(events('')).toBe('A webhook needs a url and events.');
    expect(events([1])).toBe('The field events must be a list of event names.');
    expect(events(Array.from({ length: 21 }, () => 'submission.graded'))).toBe('The field events must be a list of event names.');
  });

  it('refuse a string field of another type or too long, naming the field; null is absent', () => {
    expect(body('issue-token', { user_id: 42, password: 'x' })).toBe('The field user_id must be a string.');
    expect(body('issue-token', { user_id: ['a', 'b'], password: 'x' })).toBe('The field user_id must be a string.');
    expect(body('issue-token', { user_id: 'a', password: 'x'.repeat(1025) })).toBe(
      'The field password must be at most 1024 characters long.',
    );
    expect(body('issue-token', { user_id: null, password: 'x', other: 1 })).toEqual({ password: 'x' });
  });

  it("refuse a missing required field with its route's message, only once every field sent is of its kind", () => {
    const term = { term_id: 'w27', term_name: 'Winter 2027', start_date: '2027-01-04', end_date: '2027-03-20' };
    expect(body('create-term', term)).toEqual(term);
    const missing = 'Term id, term name, start date and end date are all required.';
    expect(body('create-term', { ...term, term_name: undefined })).toBe(missing);
    expect(body('create-term', { ...term, end_date: null })).toBe(missing);
    // '' is not sent, as the reference reads it.
    expect(body('create-term', { ...term, start_date: '' })).toBe(missing);
    // A field of another kind is named first, whichever field is missing.
    expect(body('create-term', { term_name: 5 })).toBe('The field term_name must be a string.');
  });

  it('count an empty or blank string as missing only where the field says so', () => {
    const refuse = () => new Refusal('invalid', 'missing');
    const plain = missingFailure(required(text(10, { description: 'x' }), refuse))!;
    const empty = missingFailure(required(text(10, { description: 'x' }), refuse, { emptyIsMissing: true }))!;
    const blank = missingFailure(required(text(10, { description: 'x' }), refuse, { blankIsMissing: true }))!;
    expect([undefined, '', ' \t', 'a', 0, false].map((value) => isMissing(plain, value))).toEqual([
      true,
      false,
      false,
      false,
      false,
      false,
    ]);
    expect([undefined, '', ' \t', 'a', 0].map((value) => isMissing(empty, value))).toEqual([true, true, false, false, false]);
    expect([undefined, '', ' \t', ' a ', 0].map((value) => isMissing(blank, value))).toEqual([true, true, true, false, false]);
    // A webhook's url of white space is missing, as the reference words it.
    expect(body('create-webhook', { url: '  ', events: 'submission.graded' })).toBe('A webhook needs a url and events.');
    expect(body('create-webhook', { url: 'https://hooks.example.edu/' })).toBe('A webhook needs a url and events.');
  });

  it('read headers by their canonical names, whatever their case on the wire', () => {
    expect(parseInput('submit-vcs', { headers: { 'idempotency-key': 'k-1' } }).headers).toEqual({ 'Idempotency-Key': 'k-1' });
  });
});
