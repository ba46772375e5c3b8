import { describe, expect, it } from 'vitest';
import { courseGroups, type Enrollment } from '#shared/courses/course.ts';
import { readableTarget } from '#shared/submissions/reading.ts';
import { enrollment as member } from '../support/enrollments.ts';

// Whose submission `values` and `attempts` may show: the caller's own; instructors' and full
// access graders' anyone's in the course; limited access graders' their sections' students.

const enrollment = (
  userId: string,
  group: Enrollment['group'],
  registrationSection: string | null,
  gradingSections: string[] = [],
): Enrollment => member(userId, { group, registrationSection, gradingSections });

const instructor = enrollment('prof', courseGroups.instructor, null);
const fullAccessGrader = enrollment('ta', courseGroups.fullAccessGrader, null, ['2']);
const mentor = enrollment('mentor', courseGroups.limitedAccessGrader, null, ['1', '3']);
const student = enrollment('amy', courseGroups.student, '1');
const otherSection = enrollment('bob', courseGroups.student, '2');
const dropped = enrollment('dee', courseGroups.student, null);
const grader = enrollment('gil', courseGroups.limitedAccessGrader, null, ['1']);

const NOT_SAME_USER = { kind: 'invalid', message: 'API key and specified user_id are not for the same user.' };
const notYourSection = (section: string) => ({ kind: 'forbidden', message: `You do not grade section ${section}.` });
const notFound = (userId: string) => ({ kind: 'not-found', message: `Graded gradeable for user with id ${userId} does not exist` });

/** Whether reading `target` as `caller` is allowed, or the refusal it meets. */
function read(caller: Enrollment | undefined, callerId: string, requested: string | undefined, target: Enrollment | undefined) {
  try {
    readableTarget({ userId: callerId }, caller, requested, target);
    return 'allowed';
  } catch (error) {
    const { kind, message } = error as { kind: string; message: string };
    return { kind, message };
  }
}

describe('whose submission the caller may read', () => {
  it('is always the caller’s own, named or not, whatever their enrollment', () => {
    expect(read(student, 'amy', undefined, undefined)).toBe('allowed');
    expect(read(student, 'amy', 'amy', student)).toBe('allowed');
    expect(read(dropped, 'dee', 'dee', undefined)).toBe('allowed');
    expect(read(undefined, 'eve', undefined, undefined)).toBe('allowed');
  });

  it('is never another user’s for a student, even a classmate in the same section', () => {
    const classmate = enrollment('cat', courseGroups.student, '1');
    expect(read(student, 'amy', 'cat', classmate)).toEqual(NOT_SAME_USER);
    expect(read(student, 'amy', 'prof', instructor)).toEqual(NOT_SAME_USER);
    // Not even whether the other user exists is told.
    expect(read(student, 'amy', 'nobody', undefined)).toEqual(NOT_SAME_USER);
    expect(read(undefined, 'eve', 'amy', student)).toEqual(NOT_SAME_USER);
  });

  it('is anyone’s taking the course for instructors and full access graders, in every section', () => {
    for (const staff of [instructor, fullAccessGrader]) {
      expect(read(staff, staff.userId, 'amy', student)).toBe('allowed');
      expect(read(staff, staff.userId, 'bob', otherSection)).toBe('allowed');
      expect(read(staff, staff.userId, 'gil', grader)).toBe('allowed');
    }
  });

  it('is only their sections’ students’ for limited access graders', () => {
    expect(read(mentor, 'mentor', 'amy', student)).toBe('allowed');
    // Refused as TA grading and late days refuse the same case, naming the section.
    expect(read(mentor, 'mentor', 'bob', otherSection)).toEqual(notYourSection('2'));
    // Staff have no registration section: not in any section the mentor grades.
    expect(read(mentor, 'mentor', 'prof', instructor)).toEqual(notYourSection('NULL'));
    expect(read(enrollment('m0', courseGroups.limitedAccessGrader, null, []), 'm0', 'amy', student)).toEqual(notYourSection('1'));
  });

  it('is not found for staff when the user is not in the course, has dropped it, or is no valid user id', () => {
    expect(read(instructor, 'prof', 'nobody', undefined)).toEqual(notFound('nobody'));
    expect(read(instructor, 'prof', 'dee', dropped)).toEqual(notFound('dee'));
    expect(read(mentor, 'mentor', 'dee', { ...dropped, registrationSection: null })).toEqual(notFound('dee'));
    expect(read(instructor, 'prof', 'not valid!', { ...student, userId: 'not valid!' })).toEqual(notFound('not valid!'));
  });

  it('names at most 64 characters of the requested id in the refusal', () => {
    const long = 'a'.repeat(300);
    expect(read(instructor, 'prof', long, undefined)).toEqual(notFound('a'.repeat(64)));
  });
});
