import { randomUUID } from 'node:crypto';
import type { Course, CourseGroup, Enrollment } from '#shared/courses/course.ts';
import { bootstrapCourse } from '#shared/courses/create-course.ts';
import { enroll } from '#shared/courses/enroll.ts';
import { setArchived } from '#shared/data/courses.ts';
import { putTerm } from '#shared/data/terms.ts';
import type { AccessLevel } from '#shared/users/user.ts';
import type { TestApi } from './http.ts';
import { createUser, type TestUser } from './users.ts';

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
  const enrollment: Enrollment = {
    term: course.term,
    course: course.course,
    userId: user.userId,
    group,
    registrationSection,
    rotatingSection: null,
    gradingSections,
  };
  await enroll(course, [enrollment]);
}

export async function tokenOf(api: TestApi, user: TestUser): Promise<string> {
  const answer = await api.postJson('/token', { user_id: user.userId, password: user.password });
  if (answer.json.status !== 'success') throw new Error(`login failed: ${answer.text}`);
  return answer.json.data.token;
}

export type Persona =
  | 'anonymous'
  | 'student'
  | 'student2'
  | 'mentor'
  | 'ta'
  | 'instructor'
  | 'otherInstructor'
  | 'groupStaff'
  | 'groupMentor'
  | 'archivedGroupInstructor'
  | 'faculty'
  | 'superuser';

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
  const make = (level: AccessLevel, prefix: string) => createUser(level, prefix);
  const [
    instructor,
    ta,
    mentor,
    student,
    student2,
    dropped,
    otherInstructor,
    groupStaff,
    faculty,
    superuser,
    siblingInstructor,
    groupMentor,
    archivedGroupInstructor,
  ] = await Promise.all([
    make('faculty', 'instructor'),
    make('user', 'ta'),
    make('user', 'mentor'),
    make('user', 'student'),
    make('user', 'student2'),
    make('user', 'dropped'),
    make('faculty', 'other'),
    make('user', 'groupstaff'),
    make('faculty', 'faculty'),
    make('superuser', 'super'),
    make('faculty', 'sibling'),
    make('user', 'groupmentor'),
    make('faculty', 'archived'),
  ]);
  const term = await createTerm('2026-08-24', 'Fall 2026');
  const course = await createCourse(term, instructor!);
  const sibling = await createCourse(term, siblingInstructor!, { accessGroup: course.accessGroup });
  await createCourse(term, otherInstructor!);
  await createCourse(term, archivedGroupInstructor!, { accessGroup: course.accessGroup, archived: true });
  await Promise.all([
    addMember(course, ta!, 2, null, ['1', '2']),
    addMember(course, mentor!, 3, null, ['1']),
    addMember(course, student!, 4, '1'),
    addMember(course, student2!, 4, '2'),
    addMember(course, dropped!, 4, null),
    addMember(sibling, groupStaff!, 2, null, ['1']),
    addMember(sibling, groupMentor!, 3, null, ['1']),
  ]);
  const users = {
    instructor,
    ta,
    mentor,
    student,
    student2,
    dropped,
    otherInstructor,
    groupStaff,
    faculty,
    superuser,
    siblingInstructor,
    groupMentor,
    archivedGroupInstructor,
  } as CourseWorld['users'];
  const personas = [
    'student',
    'student2',
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
  const tokens = { anonymous: {} } as CourseWorld['tokens'];
  for (const persona of personas) tokens[persona] = { Authorization: await tokenOf(api, users[persona]) };
  return { term, course, sibling, users, tokens };
}
