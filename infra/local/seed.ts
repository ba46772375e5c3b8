import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setPassword } from '#shared/auth/tokens.ts';
import { bootstrapCourse } from '#shared/courses/create-course.ts';
import { enroll } from '#shared/courses/enroll.ts';
import type { Course, CourseGroup, Enrollment, Term } from '#shared/courses/course.ts';
import { setArchived } from '#shared/data/courses.ts';
import { uploadGradeable } from '#shared/gradeables/upload.ts';
import { putTerm } from '#shared/data/terms.ts';
import { putUser } from '#shared/data/users.ts';
import type { User } from '#shared/users/user.ts';

/** The demo dataset; every password equals its user id (local use only). */
export const demoUsers: readonly User[] = [
  { userId: 'admin', givenName: 'Alex', familyName: 'Admin', email: 'admin@example.edu', accessLevel: 'superuser' },
  { userId: 'instructor', givenName: 'Ines', familyName: 'Instructor', email: 'instructor@example.edu', accessLevel: 'faculty' },
  { userId: 'ta', givenName: 'Theo', familyName: 'Assistant', email: 'ta@example.edu', accessLevel: 'user' },
  { userId: 'mentor', givenName: 'Mia', familyName: 'Mentor', email: 'mentor@example.edu', accessLevel: 'user' },
  { userId: 'student', givenName: 'Sam', familyName: 'Student', email: 'student@example.edu', accessLevel: 'user' },
  { userId: 'student2', givenName: 'Jordan', familyName: 'Lee', email: 'student2@example.edu', accessLevel: 'user' },
  { userId: 'student3', givenName: 'Riley', familyName: 'Garcia', email: 'student3@example.edu', accessLevel: 'user' },
];

export const demoTerms: readonly Term[] = [
  { termId: 'f26', name: 'Fall 2026', startDate: '2026-08-24', endDate: '2026-12-18' },
  { termId: 's26', name: 'Spring 2026', startDate: '2026-01-12', endDate: '2026-05-08' },
];

const sample = (term: string): Course => ({
  term,
  course: 'sample',
  displayName: 'Sample Course',
  archived: false,
  timeZone: 'America/New_York',
  accessGroup: 'sample',
});

const member = (
  course: Course,
  userId: string,
  group: CourseGroup,
  registrationSection: string | null,
  gradingSections: string[] = [],
): Enrollment => ({ term: course.term, course: course.course, userId, group, registrationSection, rotatingSection: null, gradingSections });

const DAY = 24 * 60 * 60 * 1000;

/**
 * The demo gradeables of f26/sample. `hw_vcs` reads each student's repository from
 * `<data folder>/repositories/hw_vcs/<user id>`, where the local grading pipeline finds it.
 */
export function demoGradeables(now: Date, dataDir: string): Record<string, unknown>[] {
  const at = (days: number) => new Date(Math.floor(now.getTime() / 1000) * 1000 + days * DAY).toISOString();
  const electronic = (open: number, due: number) => ({
    ta_view_start_date: at(open - 1),
    submission_open_date: at(open),
    submission_due_date: at(due),
    team_lock_date: at(due),
    grade_start_date: at(due + 1),
    grade_due_date: at(due + 7),
    grade_released_date: at(due + 8),
    grade_inquiry_start_date: at(due + 8),
    grade_inquiry_due_date: at(due + 15),
    has_due_date: true,
    has_release_date: true,
    late_submission_allowed: true,
    late_days: 2,
  });
  const test = (name: string, command: string, points: number, expect: object, extra: object = {}) => ({
    name, details: '', command, points_available: points, is_extra_credit: false, is_hidden: false, timeout_seconds: 10, expect, ...extra,
  });
  return [
    {
      id: 'hw_vcs',
      title: 'Homework 1: Hello (git)',
      type: 'Electronic File',
      syllabus_bucket: 'homework',
      ta_grading: true,
      vcs: { repository_type: 'self-hosted', vcs_path: `file://${dataDir}/repositories/{$gradeable_id}/{$user_id}`, vcs_subdirectory: '' },
      dates: electronic(-1, 7),
      autograding: {
        test_cases: [
          test('Program runs', 'sh hello.sh', 2, { exit_code: 0 }),
          test('Prints a greeting', 'sh hello.sh', 3, { stdout_contains: 'Hello' }),
          test('Has a README', 'true', 1, { files_exist: ['README.md'] }, { is_extra_credit: true }),
          test('Greets by name', 'sh hello.sh World', 4, { stdout: 'Hello, World!\n' }, { is_hidden: true }),
        ],
      },
    },
    { id: 'open_homework', title: 'Homework 2: Essay', type: 'Electronic File', syllabus_bucket: 'homework', dates: electronic(-1, 10) },
    { id: 'future_homework', title: 'Homework 3: Later', type: 'Electronic File', syllabus_bucket: 'homework', dates: electronic(30, 40) },
    {
      id: 'lab_checkpoints',
      title: 'Lab 1',
      type: 'Checkpoints',
      syllabus_bucket: 'lab',
      dates: { ta_view_start_date: at(-2), grade_start_date: at(-1), grade_due_date: at(6), grade_released_date: at(7) },
    },
  ];
}

/** The demo students' hw_vcs repositories: `student`'s passes every test, `student2`'s fails some. */
async function createDemoRepositories(dataDir: string): Promise<void> {
  const files: Record<string, Record<string, string>> = {
    student: { 'hello.sh': 'echo "Hello, ${1:-World}!"\n', 'README.md': '# Homework 1\n' },
    student2: { 'hello.sh': 'echo "Hi there"\n' },
  };
  for (const [userId, contents] of Object.entries(files)) {
    const folder = join(dataDir, 'repositories', 'hw_vcs', userId);
    await mkdir(folder, { recursive: true });
    for (const [name, text] of Object.entries(contents)) await writeFile(join(folder, name), text);
  }
}

export async function seedDemoData(dataDir: string, now = new Date()): Promise<void> {
  await createDemoRepositories(dataDir);
  await Promise.all([
    ...demoUsers.map(async (user) => {
      await putUser(user);
      await setPassword(user.userId, user.userId);
    }),
    ...demoTerms.map(putTerm),
  ]);
  const fall = sample('f26');
  const spring = sample('s26');
  await Promise.all([bootstrapCourse(fall, 'instructor'), bootstrapCourse(spring, 'instructor')]);
  await enroll(fall, [
    member(fall, 'ta', 2, null, ['1', '2']),
    member(fall, 'mentor', 3, null, ['1']),
    member(fall, 'student', 4, '1'),
    member(fall, 'student2', 4, '2'),
    member(fall, 'student3', 4, null),
  ]);
  await enroll(spring, [member(spring, 'student', 4, '1')]);
  await setArchived('s26', 'sample', true);
  for (const document of demoGradeables(now, dataDir)) await uploadGradeable(fall, document, now);
}
