import { describe, expect, it } from 'vitest';
import { MAX_CLASS_LIST_ROWS, planClassList, readClassList } from '#shared/courses/class-list.ts';
import type { Enrollment } from '#shared/courses/course.ts';
import type { User } from '#shared/users/user.ts';

describe('reading the CSV (csv-parse)', () => {
  it('drops a byte-order mark, keeps quoted commas, quotes and line breaks, skips blank lines and numbers lines as the file does', () => {
    const { rows, rejected } = readClassList(
      '\uFEFFuser_id,first_name,last_name,email,registration_section,group\r\n' +
        '"amy","Amy, Jr.","O""Ames",amy@x.edu,1,4\r\n' +
        '\r\n' +
        'bob,"Bob\nBobby",Bo,bob@x.edu,1,4\n' +
        '\n\n' +
        'cat,Cat,Cole,cat@x.edu,2,4',
    );
    expect(rejected).toEqual([{ line: 4, reason: 'The first_name must not hold control characters.' }]);
    expect(rows.map(({ line, userId, givenName, familyName }) => [line, userId, givenName, familyName])).toEqual([
      [2, 'amy', 'Amy, Jr.', 'O"Ames'],
      [8, 'cat', 'Cat', 'Cole'],
    ]);
  });

  it('refuses a file that is not CSV, one without its columns and one too long, as a whole', () => {
    expect(() => readClassList('user_id,first_name\n"amy,1\n')).toThrow(/^The class list is not readable CSV: Quote Not Closed/);
    expect(() => readClassList('')).toThrow(
      'The class list header lacks the column(s) user_id, first_name, last_name, email, registration_section, group.',
    );
    expect(() => readClassList('\x00\x01\xff garbage')).toThrow(/header lacks/);
    const long = [header, ...Array.from({ length: MAX_CLASS_LIST_ROWS + 1 }, (_, i) => `u${i},A,B,u${i}@x.edu,1,4`)].join('\n');
    expect(() => readClassList(long)).toThrow(`The class list has more than ${MAX_CLASS_LIST_ROWS} rows; split it.`);
  });

  it('refuses formula-like names and e-mails (=, +, -, @ first) with the reason, and keeps the rest', () => {
    const { rows, rejected } = readClassList(
      [
        header,
        '"amy","=HYPERLINK(""x"")",A,amy@x.edu,1,4',
        'bob,Bob,+1,bob@x.edu,1,4',
        'cat,Cat,C,@cat@x.edu,1,4',
        'dan,Dan,-D,dan@x.edu,1,4',
        'eve,Eve,E,eve@x.edu,1,4',
      ].join('\n'),
    );
    expect(rows.map((row) => row.userId)).toEqual(['eve']);
    expect(rejected).toEqual([
      { line: 2, reason: 'The first_name starts with "=", which spreadsheets run as a formula.' },
      { line: 3, reason: 'The last_name starts with "+", which spreadsheets run as a formula.' },
      { line: 4, reason: 'The email starts with "@", which spreadsheets run as a formula.' },
      { line: 5, reason: 'The last_name starts with "-", which spreadsheets run as a formula.' },
    ]);
  });
});

const header = 'user_id,first_name,last_name,email,registration_section,group';

describe('readClassList', () => {
  it('accepts good rows in any column order and group names or numbers', () => {
    const { rows, rejected } = readClassList(
      'group,user_id,first_name,last_name,email,registration_section\n4,amy,Amy,Ames,amy@x.edu,1\nInstructor,bob,Bob,Bo,bob@x.edu,\n',
    );
    expect(rejected).toEqual([]);
    expect(rows).toEqual([
      { line: 2, userId: 'amy', givenName: 'Amy', familyName: 'Ames', email: 'amy@x.edu', registrationSection: '1', group: 4 },
      { line: 3, userId: 'bob', givenName: 'Bob', familyName: 'Bo', email: 'bob@x.edu', registrationSection: null, group: 1 },
    ]);
  });

  it('rejects each bad row with its line number and reason', () => {
    const { rows, rejected } = readClassList(
      [
        header,
        '../x,A,B,a@x.edu,1,4',
        'amy,Amy,Ames,amy@x.edu,1,4',
        'amy,Amy,Again,amy@x.edu,1,4',
        'cat,,Cole,cat@x.edu,1,4',
        'dan,Dan,Doe,not-an-email,1,4',
        'eve,Eve,Eden,eve@x.edu,1 2,4',
        'fay,Fay,Fox,fay@x.edu,1,9',
        'gus,Gus,Gray,gus@x.edu,1',
        'hal,Hal,Hill,hal@x.edu,1,constructor',
      ].join('\n'),
    );
    expect(rows.map((row) => row.userId)).toEqual(['amy']);
    expect(rejected.map(({ line, reason }) => `${line}: ${reason.split(/[.:]/)[0]}`)).toEqual([
      '2: Invalid user id "',
      '4: User amy appears more than once; the first row counts',
      '5: The first_name is required',
      '6: The email must be an e-mail address',
      '7: Invalid registration section "1 2"',
      '8: Invalid group "9"',
      '9: Expected 6 fields, found 5',
      '10: Invalid group "constructor"',
    ]);
  });

  it('rejects a file without the required columns as a whole', () => {
    expect(() => readClassList('user_id,first_name\namy,Amy')).toThrow(
      'The class list header lacks the column(s) last_name, email, registration_section, group.',
    );
  });
});

describe('planClassList', () => {
  const course = { term: 'f26', course: 'cs1' };
  const list = readClassList(`${header}\namy,Amy,Ames,amy@x.edu,1,4\nbob,Bob,Bo,bob@x.edu,2,4\ncat,Cat,Cole,cat@x.edu,,2`);
  const user = (userId: string, givenName: string): User => ({
    userId,
    givenName,
    familyName: userId === 'bob' ? 'Bo' : 'Cole',
    email: `${userId}@x.edu`,
    accessLevel: 'user',
  });
  const enrollment = (userId: string, group: 1 | 2 | 3 | 4, section: string | null): Enrollment => ({
    ...course,
    userId,
    group,
    registrationSection: section,
    rotatingSection: 'R',
    gradingSections: ['9'],
  });

  it('creates missing users, updates changed ones and keeps sections it does not manage', () => {
    const plan = planClassList(
      course,
      list,
      new Map([
        ['bob', user('bob', 'Robert')],
        ['cat', user('cat', 'Cat')],
      ]),
      new Map([
        ['bob', enrollment('bob', 4, '1')],
        ['cat', enrollment('cat', 2, null)],
      ]),
    );
    expect(plan.usersToCreate.map((u) => u.userId)).toEqual(['amy']);
    expect(plan.usersToUpdate).toEqual([{ ...user('bob', 'Bob') }]);
    expect(plan.changes.map(({ after }) => after)).toEqual([
      { ...course, userId: 'amy', group: 4, registrationSection: '1', rotatingSection: null, gradingSections: [] },
      { ...course, userId: 'bob', group: 4, registrationSection: '2', rotatingSection: 'R', gradingSections: [] },
    ]);
    expect([plan.created, plan.updated, plan.unchanged, plan.dropped]).toEqual([1, 1, 1, 0]);
  });

  it('drops students missing from the list (not staff, not students named on a rejected row) only when asked', () => {
    const withBad = readClassList(`${header}\namy,Amy,Ames,amy@x.edu,1,4\nzed,Zed,Z,not-an-email,1,4`);
    const enrolled = new Map([
      ['amy', { ...enrollment('amy', 4, '1'), gradingSections: [] }],
      ['old', enrollment('old', 4, '3')],
      ['zed', enrollment('zed', 4, '3')],
      ['gone', enrollment('gone', 4, null)],
      ['ta', enrollment('ta', 2, null)],
    ]);
    const users = new Map([['amy', { ...user('amy', 'Amy'), familyName: 'Ames' }]]);
    const dropping = planClassList(course, withBad, users, enrolled, { dropMissing: true });
    expect(dropping.changes.map(({ before, after }) => [before?.userId, after?.registrationSection])).toEqual([['old', null]]);
    expect([dropping.created, dropping.updated, dropping.unchanged, dropping.dropped]).toEqual([0, 0, 1, 1]);
    expect(planClassList(course, withBad, users, enrolled).changes).toEqual([]);
  });

  it("keeps the registration section a member has with keepSections (an LMS roster sync), giving the row's to members without one", () => {
    const enrolled = new Map([
      ['bob', { ...enrollment('bob', 4, '5'), gradingSections: [] }],
      ['amy', { ...enrollment('amy', 4, null), gradingSections: [] }],
    ]);
    const plan = planClassList(course, list, new Map(), enrolled, { keepSections: true });
    expect(plan.changes.map(({ after }) => [after?.userId, after?.registrationSection])).toEqual([
      ['amy', '1'],
      ['cat', null],
    ]);
    expect(plan.unchanged).toBe(1);
  });

  it("keeps the role a member has with keepRoles (an LMS roster sync), giving the row's to members new to the course", () => {
    const enrolled = new Map([['bob', enrollment('bob', 2, null)]]);
    const changesOf = (options: { keepRoles?: boolean }) =>
      planClassList(course, list, new Map(), enrolled, options).changes.map(({ after }) => [
        after?.userId,
        after?.group,
        after?.registrationSection,
      ]);
    // Bob stays a grader, and keeps his section (none), the row's being a student's.
    expect(changesOf({ keepRoles: true })).toEqual([
      ['amy', 4, '1'],
      ['cat', 2, null],
    ]);
    expect(changesOf({})).toEqual([
      ['amy', 4, '1'],
      ['bob', 4, '2'],
      ['cat', 2, null],
    ]);
  });

  it('refuses the rows that would leave the course without an instructor', () => {
    const demoting = readClassList(`${header}\nins,In,S,ins@x.edu,1,4\nbob,Bob,Bo,bob@x.edu,,1`);
    const plan = planClassList(course, demoting, new Map(), new Map([['ins', enrollment('ins', 1, null)]]));
    expect(plan.refused).toEqual([{ line: 2, reason: 'ins is the last instructor of the course; it must keep one.' }]);
    expect(plan.changes.map(({ after }) => after?.userId)).toEqual(['bob']);
    const withOther = new Map([
      ['ins', enrollment('ins', 1, null)],
      ['two', enrollment('two', 1, null)],
    ]);
    const kept = planClassList(course, demoting, new Map(), withOther);
    expect([kept.refused, kept.keptInstructor]).toEqual([[], 'two']);
  });
});
