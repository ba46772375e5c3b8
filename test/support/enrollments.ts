import type { Enrollment, PersonName } from '#shared/courses/course.ts';

/**
 * A course member's enrollment as the enrollments table keeps it: a student (group 4) of
 * registration section 1 in course f26/cs1, with no rotating or grading sections, unless
 * `fields` says otherwise.
 */
export const enrollment = (userId: string, fields: Partial<Enrollment> = {}): Enrollment => ({
  term: 'f26',
  course: 'cs1',
  userId,
  group: 4,
  registrationSection: '1',
  rotatingSection: null,
  gradingSections: [],
  ...fields,
});

/** A user's name and address, made from the user id unless `fields` says otherwise. */
export const person = (userId: string, fields: Partial<PersonName> = {}): PersonName => ({
  userId,
  givenName: `${userId} given`,
  familyName: `${userId} family`,
  email: `${userId}@example.edu`,
  ...fields,
});
