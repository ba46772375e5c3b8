import { randomUUID } from 'node:crypto';
import type { Course, CourseGroup } from '#shared/courses/course.ts';
import { bootstrapCourse } from '#shared/courses/create-course.ts';
import { enroll } from '#shared/courses/enroll.ts';
import { setArchived } from '#shared/data/courses.ts';
import { putTerm } from '#shared/data/terms.ts';
import type { AccessLevel } from '#shared/users/user.ts';
import type { TestApi } from './http.ts';
import { createUser, type TestUser } from './users.ts';
import { enrollment } from './enrollments.ts';

export const uniqueCode = (prefix: string) => `${prefix}_${randomUUID().slice(0, 8).replace(/-/g, '')}`;

export async function createTerm(startDate: string, name = 'Test Term'): Promise<string> {
  const termId = uniqueCode('t');
  await putTerm({ termId, name, startDate, endDate: startDate.replace(/-\d\d$/, '-28') });
  return termId;
}

export async function createCourse(
  term: string,
  instructor: TestUser,
  options: { code?: string; accessGroup?: string; archived?: boolean } = {},
): Promise<Course> {
  const course: Course = {
    term,
    course: options.code ?? uniqueCode('c'),
    displayName: 'Test Course',
    archived: false,
    timeZone: 'America/New_York',
    accessGroup: options.accessGroup ?? uniqueCode('g'),
  };
  await bootstrapCourse(course, instructor.userId);
  if (options.archived) await setArchived(course.term, course.course, true);
  return { ...course, archived: options.archived ?? false };
}

export async function addMember(
  course: Course,
  user: TestUser,
  group: CourseGroup,
  registrationSection: string | null = null,
  gradingSections: string[] = [],
): Promise<void> {
  await enroll(course, [
    enrollment(user.userId, { term: course.term, course: course.course, group, registrationSection, gradingSections }),
  ]);
}

export async function tokenOf(api: TestApi, user: TestUser): Promise<string> {
  const answer = await api.postJson('/token', { user_id: user.userId, password: user.password });
  if (answer.json.status !== 'success') throw new Error(`login failed: ${answer.text}`);
  return answer.json.data.token;
}

/** The personas of a course world who log in and are not its students, from its own staff outwards. */
export const nonStudentPersonas = [
  'mentor',
  'ta',
  'instructor',
  'otherInstructor',
  'groupStaff',
  'groupMentor',
  'archivedGroupInstructor',
  'faculty',
  'superuser',
] as const;

export type Persona = 'anonymous' | 'student' | 'student2' | (typeof nonStudentPersonas)[number];

export interface CourseWorld {
  readonly term: string;
  readonly course: Course;
  /** The other unarchived course of its access group. */
  readonly sibling: Course;
  readonly users: Record<Exclude<Persona, 'anonymous'> | 'dropped' | 'siblingInstructor', TestUser>;
  /** Authorization header of each persona (anonymous: none). */
  readonly tokens: Record<Persona, Record<string, string>>;
}

/**
 * A course with every persona: its instructor, a full access grader (sections 1 and 2), a limited
 * access grader (section 1), students in sections 1 and 2, a dropped student; an instructor of an
 * unrelated course, the instructor, a full access grader (groupStaff) and a limited access grader
 * (groupMentor) of a sibling course in the same access group, the instructor of an archived course
 * of the group, faculty outside the course, and a superuser.
 */
export async function createCourseWorld(api: TestApi): Promise<CourseWorld> {
  // Each user's access level and the prefix of its generated id.
  const accounts: Record<keyof CourseWorld['users'], [AccessLevel, string]> = {
    instructor: ['faculty', 'instructor'],
    ta: ['user', 'ta'],
    mentor: ['user', 'mentor'],
    student: ['user', 'student'],
    student2: ['user', 'student2'],
    dropped: ['user', 'dropped'],
    otherInstructor: ['faculty', 'other'],
    groupStaff: ['user', 'groupstaff'],
    faculty: ['faculty', 'faculty'],
    superuser: ['superuser', 'super'],
    siblingInstructor: ['faculty', 'sibling'],
    groupMentor: ['user', 'groupmentor'],
    archivedGroupInstructor: ['faculty', 'archived'],
  };
  const users = Object.fromEntries(
    await Promise.all(Object.entries(accounts).map(async ([name, [level, prefix]]) => [name, await createUser(level, prefix)])),
  ) as CourseWorld['users'];
  const term = await createTerm('2026-08-24', 'Fall 2026');
  const course = await createCourse(term, users.instructor);
  const sibling = await createCourse(term, users.siblingInstructor, { accessGroup: course.accessGroup });
  await createCourse(term, users.otherInstructor);
  await createCourse(term, users.archivedGroupInstructor, { accessGroup: course.accessGroup, archived: true });
  await Promise.all([
    addMember(course, users.ta, 2, null, ['1', '2']),
    addMember(course, users.mentor, 3, null, ['1']),
    addMember(course, users.student, 4, '1'),
    addMember(course, users.student2, 4, '2'),
    addMember(course, users.dropped, 4, null),
    addMember(sibling, users.groupStaff, 2, null, ['1']),
    addMember(sibling, users.groupMentor, 3, null, ['1']),
  ]);
  const tokens = { anonymous: {} } as CourseWorld['tokens'];
  for (const persona of ['student', 'student2', ...nonStudentPersonas] as const)
    tokens[persona] = { Authorization: await tokenOf(api, users[persona]) };
  return { term, course, sibling, users, tokens };
}
