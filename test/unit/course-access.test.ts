import { describe, expect, it } from 'vitest';
import {
  courseAccess,
  groupRoleOf,
  isCourseAccess,
  readsHiddenTests,
  strongestGroupRole,
  type CourseAccess,
} from '#shared/courses/access.ts';
import { courseGroups, isActiveMember, isStaff, listCourses, type Course, type Enrollment } from '#shared/courses/course.ts';
import { enrollment as member } from '../support/enrollments.ts';

const enrollment = (group: Enrollment['group'], registrationSection: string | null, gradingSections: string[] = []): Enrollment =>
  member('someone', { group, registrationSection, gradingSections });

const people = {
  instructor: enrollment(courseGroups.instructor, null),
  fullAccessGrader: enrollment(courseGroups.fullAccessGrader, null, ['1']),
  limitedAccessGrader: enrollment(courseGroups.limitedAccessGrader, null, ['1']),
  student: enrollment(courseGroups.student, '1'),
  droppedStudent: enrollment(courseGroups.student, null),
  stranger: undefined,
};
type Person = keyof typeof people;

/** Every rule's decision for every kind of caller. */
const decisions: Record<CourseAccess, Record<Person, string>> = {
  'course:member': {
    instructor: 'allowed',
    fullAccessGrader: 'allowed',
    limitedAccessGrader: 'allowed',
    student: 'allowed',
    droppedStudent: 'denied',
    stranger: 'denied',
  },
  'course:staff': {
    instructor: 'allowed',
    fullAccessGrader: 'allowed',
    limitedAccessGrader: 'allowed',
    student: 'denied',
    droppedStudent: 'denied',
    stranger: 'denied',
  },
  'course:instructor': {
    instructor: 'allowed',
    fullAccessGrader: 'denied',
    limitedAccessGrader: 'denied',
    student: 'denied',
    droppedStudent: 'denied',
    stranger: 'denied',
  },
  // A superuser's token is let in whatever their enrollment (see the test below).
  'course:instructor-or-superuser': {
    instructor: 'allowed',
    fullAccessGrader: 'denied',
    limitedAccessGrader: 'denied',
    student: 'denied',
    droppedStudent: 'denied',
    stranger: 'denied',
  },
  // Staff of the course itself are let in; anyone else only if they are staff of another course
  // in its access group, which the caller has to look up.
  'course:instructor-or-group-staff': {
    instructor: 'allowed',
    fullAccessGrader: 'allowed',
    limitedAccessGrader: 'allowed',
    student: 'ask-access-group',
    droppedStudent: 'ask-access-group',
    stranger: 'ask-access-group',
  },
};

describe('course access', () => {
  for (const [rule, byPerson] of Object.entries(decisions) as [CourseAccess, Record<Person, string>][]) {
    it(`${rule}: ${Object.entries(byPerson)
      .map(([person, decision]) => `${person} ${decision}`)
      .join(', ')}`, () => {
      for (const [person, decision] of Object.entries(byPerson)) {
        expect(courseAccess(rule, people[person as Person]), `${rule} for ${person}`).toBe(decision);
      }
    });
  }

  it('course:instructor-or-superuser lets superusers in without an enrollment, instructors of any level, and no one else', () => {
    expect(courseAccess('course:instructor-or-superuser', undefined, { accessLevel: 'superuser' })).toBe('allowed');
    expect(courseAccess('course:instructor-or-superuser', people.student, { accessLevel: 'superuser' })).toBe('allowed');
    expect(courseAccess('course:instructor-or-superuser', undefined, { accessLevel: 'faculty' })).toBe('denied');
    expect(courseAccess('course:instructor-or-superuser', people.student, { accessLevel: 'faculty' })).toBe('denied');
    expect(courseAccess('course:instructor-or-superuser', people.instructor, { accessLevel: 'user' })).toBe('allowed');
    expect(courseAccess('course:instructor', undefined, { accessLevel: 'superuser' })).toBe('denied');
  });

  it('a grader without sections is still staff and a member; a student is a member only with a section', () => {
    expect(isStaff(enrollment(courseGroups.limitedAccessGrader, null))).toBe(true);
    expect(isActiveMember(enrollment(courseGroups.limitedAccessGrader, null))).toBe(true);
    expect(isStaff(people.student)).toBe(false);
    expect(isActiveMember(people.student)).toBe(true);
    expect(isActiveMember(people.droppedStudent)).toBe(false);
  });

  it('tells course rules from the other access rules of the route table', () => {
    expect(isCourseAccess('course:member')).toBe(true);
    expect(isCourseAccess('course:instructor-or-group-staff')).toBe(true);
    for (const other of ['public', 'token-optional', 'user', 'faculty', 'superuser', '']) expect(isCourseAccess(other)).toBe(false);
  });
});

describe('reading across an access group', () => {
  const course = (archived: boolean, accessGroup = 'g') => ({ archived, accessGroup });

  it('comes from being an instructor or full access grader of an unarchived course still in the group', () => {
    expect(groupRoleOf(people.instructor, course(false), 'g')).toBe(courseGroups.instructor);
    expect(groupRoleOf(people.fullAccessGrader, course(false), 'g')).toBe(courseGroups.fullAccessGrader);
    for (const person of ['limitedAccessGrader', 'student', 'droppedStudent', 'stranger'] as const) {
      expect(groupRoleOf(people[person], course(false), 'g'), person).toBeUndefined();
    }
    expect(groupRoleOf(people.instructor, course(true), 'g'), 'archived').toBeUndefined();
    expect(groupRoleOf(people.fullAccessGrader, course(true), 'g'), 'archived').toBeUndefined();
    expect(groupRoleOf(people.instructor, course(false, 'elsewhere'), 'g'), 'moved to another group').toBeUndefined();
    expect(groupRoleOf(people.instructor, undefined, 'g'), 'course gone').toBeUndefined();
  });

  it('takes the strongest role of several courses', () => {
    expect(strongestGroupRole([undefined, courseGroups.fullAccessGrader, courseGroups.instructor])).toBe(courseGroups.instructor);
    expect(strongestGroupRole([courseGroups.fullAccessGrader, undefined])).toBe(courseGroups.fullAccessGrader);
    expect(strongestGroupRole([])).toBeUndefined();
  });

  it('shows hidden test cases to instructors only: of the course, or let in by the group as one', () => {
    expect(readsHiddenTests(people.instructor)).toBe(true);
    expect(readsHiddenTests(undefined, courseGroups.instructor)).toBe(true);
    expect(readsHiddenTests(people.fullAccessGrader)).toBe(false);
    expect(readsHiddenTests(people.limitedAccessGrader)).toBe(false);
    expect(readsHiddenTests(undefined, courseGroups.fullAccessGrader)).toBe(false);
    expect(readsHiddenTests(people.student)).toBe(false);
  });
});

describe('a user’s course list', () => {
  const course = (code: string, archived = false): Course => ({
    term: 'f26',
    course: code,
    displayName: code.toUpperCase(),
    archived,
    timeZone: 'UTC',
    accessGroup: 'g',
  });
  const term = (termId: string, startDate: string) => ({ termId, name: termId, startDate, endDate: '2099-01-01' });

  it('lists current courses taken now and archived courses taught, by group, then newest term, then code', () => {
    const listed = listCourses([
      { course: course('zeta'), term: term('s26', '2026-01-10'), enrollment: people.student },
      { course: course('alpha'), term: term('s26', '2026-01-10'), enrollment: people.student },
      { course: course('newer'), term: term('f26', '2026-09-01'), enrollment: people.student },
      { course: course('taught'), term: term('s26', '2026-01-10'), enrollment: people.instructor },
      { course: course('dropped'), term: term('f26', '2026-09-01'), enrollment: people.droppedStudent },
      { course: course('old-taught', true), term: term('s25', '2025-01-10'), enrollment: people.instructor },
      { course: course('old-graded', true), term: term('s25', '2025-01-10'), enrollment: people.fullAccessGrader },
      { course: course('old-taken', true), term: term('s25', '2025-01-10'), enrollment: people.student },
    ]);
    expect(listed.unarchived_courses.map((c) => c.title)).toEqual(['taught', 'newer', 'alpha', 'zeta']);
    expect(listed.archived_courses.map((c) => c.title)).toEqual(['old-taught']);
    expect(listed.unarchived_courses[0]).toEqual({
      semester: 'f26',
      title: 'taught',
      display_name: 'TAUGHT',
      display_semester: 's26',
      user_group: 1,
      registration_section: null,
    });
  });

  it('shows the term code when the term is unknown', () => {
    const listed = listCourses([{ course: course('x'), term: undefined, enrollment: people.student }]);
    expect(listed.unarchived_courses[0]).toMatchObject({ semester: 'f26', display_semester: 'f26' });
  });
});
