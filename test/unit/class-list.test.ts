import { describe, expect, it } from 'vitest';
import { planClassList, readClassList } from '#shared/courses/class-list.ts';
import type { Enrollment } from '#shared/courses/course.ts';
import { parseCsv } from '#shared/courses/csv.ts';
import type { User } from '#shared/users/user.ts';

describe('parseCsv', () => {
  it('reads quoted fields with commas, quotes and line breaks, and tracks line numbers', () => {
    const records = parseCsv('\uFEFFa,b\r\n"x, y","say ""hi"""\n"two\nlines",z\n\nlast,row');
    expect(records).toEqual([
      { line: 1, fields: ['a', 'b'] },
      { line: 2, fields: ['x, y', 'say "hi"'] },
      { line: 3, fields: ['two\nlines', 'z'] },
      { line: 6, fields: ['last', 'row'] },
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
      '5: First and last name are required',
      '6: Invalid e-mail address',
      '7: Invalid registration section "1 2"',
      '8: Invalid group "9"',
      '9: Expected 6 fields, found 5',
      '10: Invalid group "constructor"',
    ]);
  });

  it('rejects a file without the required columns as a whole', () => {
    expect(readClassList('user_id,first_name\namy,Amy')).toEqual({
      rows: [],
      rejected: [{ line: 1, reason: 'The header lacks the column(s) last_name, email, registration_section, group.' }],
    });
  });
});

describe('planClassList', () => {
  const course = { term: 'f26', course: 'cs1' };
  const { rows } = readClassList(`${header}\namy,Amy,Ames,amy@x.edu,1,4\nbob,Bob,Bo,bob@x.edu,2,4\ncat,Cat,Cole,cat@x.edu,,2`);
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
      rows,
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
    expect(plan.enrollmentsToWrite).toEqual([
      { ...course, userId: 'amy', group: 4, registrationSection: '1', rotatingSection: null, gradingSections: [] },
      { ...course, userId: 'bob', group: 4, registrationSection: '2', rotatingSection: 'R', gradingSections: ['9'] },
    ]);
    expect(plan.unchanged).toBe(1);
  });
});
