import { describe, expect, it } from 'vitest';
import { courseGraders, courseUsers, type Enrollment, type PersonName } from '#shared/courses/course.ts';
import { enrollment, person } from '../support/enrollments.ts';

// The users and graders lists of a course, in the reference's record format (docs/reference-compatibility.md).

const member = (
  userId: string,
  group: Enrollment['group'],
  registrationSection: string | null,
  fields: Partial<Enrollment> = {},
): { person: PersonName; enrollment: Enrollment } => ({
  person: person(userId),
  enrollment: enrollment(userId, { group, registrationSection, ...fields }),
});

describe('the users list', () => {
  it('orders by registration section (numbers as numbers, no section last), then user id', () => {
    const users = courseUsers([
      member('zed', 4, '10'),
      member('amy', 4, '2'),
      member('dropped', 4, null),
      member('bob', 4, '2'),
      member('prof', 1, null),
      member('lab', 4, 'B'),
      member('cat', 4, '1'),
    ]);
    expect(users.map((u) => `${u.reg_section}/${u.user_id}`)).toEqual([
      '1/cat',
      '2/amy',
      '2/bob',
      '10/zed',
      'B/lab',
      'NULL/dropped',
      'NULL/prof',
    ]);
  });

  it('gives each user the reference’s fields, with NULL for missing sections and the group’s label', () => {
    const [user] = courseUsers([member('amy', 4, '2', { rotatingSection: '7' })]);
    expect(user).toEqual({
      first_name: 'amy given',
      last_name: 'amy family',
      user_id: 'amy',
      email: 'amy@example.edu',
      reg_section: '2',
      rot_section: '7',
      group: 'Student',
      given_name: 'amy given',
      family_name: 'amy family',
    });
    expect(courseUsers([member('m', 3, null)])[0]).toMatchObject({
      reg_section: 'NULL',
      rot_section: 'NULL',
      group: 'Limited Access Grader (Mentor)',
    });
  });
});

describe('the graders list', () => {
  it('lists staff only: instructors grade All sections, graders theirs, a grader without sections NULL', () => {
    const graders = courseGraders([
      member('amy', 4, '1'),
      member('prof', 1, null),
      member('ta', 2, null, { gradingSections: ['1', '2'] }),
      member('mentor', 3, null, { gradingSections: ['3'] }),
      member('idle', 3, null),
    ]);
    expect(graders.map((g) => [g.user_id, g.reg_section, g.group])).toEqual([
      ['ta', '1,2', 'Full Access Grader (Grad TA)'],
      ['mentor', '3', 'Limited Access Grader (Mentor)'],
      ['prof', 'All', 'Instructor'],
      ['idle', 'NULL', 'Limited Access Grader (Mentor)'],
    ]);
  });
});
