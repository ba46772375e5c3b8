import { describe, expect, it } from 'vitest';
import { takesSubmissions } from '#shared/courses/course.ts';
import { parseSetting } from '#shared/courses/settings.ts';
import { parseInput } from '#functions/definitions.ts';
import { changedFields, strandingFields } from '#shared/gradeables/change.ts';
import type { GradeableDocument } from '#shared/gradeables/gradeable.ts';

const doc = (fields: Record<string, unknown>) =>
  ({ id: 'hw', title: 'Hw', type: 'Electronic File', dates: {}, ...fields }) as unknown as GradeableDocument;
const vcs = { repository_type: 'public-github', vcs_path: 'https://example.org/r.git', vcs_subdirectory: '' };

describe('gradeable changes that would strand submissions', () => {
  it('names the type, version control taken away and teams added or taken away; allows the rest', () => {
    expect(strandingFields(doc({ vcs }), doc({ type: 'Numeric' }))).toEqual(['type', 'vcs']);
    expect(strandingFields(doc({ vcs }), doc({ vcs: { ...vcs, vcs_subdirectory: 'src' }, title: 'New' }))).toEqual([]);
    expect(strandingFields(doc({}), doc({ vcs }))).toEqual([]);
    expect(strandingFields(doc({ team_gradeable: { team_size_max: 2 } }), doc({}))).toEqual(['team_gradeable']);
    expect(strandingFields(doc({}), doc({ team_gradeable: { team_size_max: 2 } }))).toEqual(['team_gradeable']);
  });

  it('the audit keeps only changed fields, a large one by its size', () => {
    const big = 'x'.repeat(20_000);
    expect(changedFields({ a: 1, b: 2, c: big }, { a: 1, b: 3, d: 4, c: `${big}y` })).toEqual({
      before: { b: 2, c: { omitted: true, bytes: 20_002 } },
      after: { b: 3, d: 4, c: { omitted: true, bytes: 20_003 } },
    });
  });
});

describe('course settings', () => {
  /** Read by the route's input (which refuses a missing name or entry), then the setting's rules. */
  const message = (name: unknown, entry: unknown) => {
    try {
      const { body } = parseInput('set-course-config', { body: { name, entry } });
      const parsed = parseSetting(body.name, body.entry);
      return 'value' in parsed ? parsed : parsed.message;
    } catch (error) {
      return (error as Error).message;
    }
  };
  it('takes name and entry as the reference does, in its words', () => {
    expect(message(undefined, '1')).toBe('Name of config value not provided');
    expect(message('', undefined)).toBe('Name of config value not provided');
    expect(message('default_student_late_days', undefined)).toBe('Name of config entry not provided');
    expect(message('default_student_late_days', null)).toBe('Name of config entry not provided');
    expect(message(7, undefined)).toBe('The field name must be a string.');
    expect(message('nope', '1')).toBe('Not a valid config name');
    expect(message('default_student_late_days', '-1')).toBe('Must enter a number for this field');
    expect(message('default_student_late_days', '1.5')).toBe('Must enter a number for this field');
    expect(message('default_student_late_days', '1001')).toBe('Value must be less than or equal to 1000');
    expect(message('default_student_late_days', 7)).toEqual({ name: 'default_student_late_days', value: 7 });
    expect(message('timezone', 'america/new_york')).toEqual({ name: 'timezone', value: 'America/New_York' });
    expect(message('timezone', 'Nowhere/Else')).toContain('is not one');
    expect(message('course_name', '   ')).toContain('course_name must be');
    expect(message('course_name', ['a'])).toContain('course_name must be');
    expect(message('archived', 'true')).toContain('archived cannot be set here');
    // Not a setting: only a superuser moves a course to another access group (setCourseConfig), before any setting is read.
    expect(message('access_group', 'x')).toBe('Not a valid config name');
  });

  it('takes archived_accepts_submissions as true or false, from JSON or a form', () => {
    for (const entry of [true, 'true', '1', 1]) expect(message('archived_accepts_submissions', entry)).toMatchObject({ value: true });
    for (const entry of [false, 'false', '0', 0]) expect(message('archived_accepts_submissions', entry)).toMatchObject({ value: false });
    for (const entry of ['yes', 2, 'TRUE'])
      expect(message('archived_accepts_submissions', entry)).toBe('Must enter true or false for this field');
  });
});

describe('a course taking submissions', () => {
  it('takes them unarchived, and archived only with archived_accepts_submissions', () => {
    expect(takesSubmissions({ archived: false })).toBe(true);
    expect(takesSubmissions({ archived: true })).toBe(false);
    expect(takesSubmissions({ archived: true, archivedAcceptsSubmissions: false })).toBe(false);
    expect(takesSubmissions({ archived: true, archivedAcceptsSubmissions: true })).toBe(true);
  });
});
