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
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '#shared/data/client.ts';
import { saveTaGrade } from '#shared/data/grades.ts';
import { putExtension, putGrant } from '#shared/data/late-days.ts';
import { putResults } from '#shared/data/results.ts';
import { gradeableKey, studentKey } from '#shared/data/submissions.ts';
import { tableName, tables } from '#shared/data/tables.ts';
import { transactWrite } from '#shared/data/transactions.ts';
import { generateSummaries } from '#shared/summaries/generate.ts';
import { withComponent, type TaGrade } from '#shared/tagrading/grade.ts';
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
  // Every student's late-day budget for the term.
  defaultStudentLateDays: 2,
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
 * `<repositories>/hw_vcs/<user id>` (`repositories`: the server's FILE_REPOSITORIES_DIR, outside
 * the data folder), where the local grading pipeline finds it.
 */
export function demoGradeables(now: Date, repositories: string): Record<string, unknown>[] {
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
    name,
    details: '',
    command,
    points_available: points,
    is_extra_credit: false,
    is_hidden: false,
    timeout_seconds: 10,
    expect,
    ...extra,
  });
  const mark = (points: number, title: string) => ({ points, title, publish: true });
  const component = (title: string, initial: number, max: number, marks: object[] = [], lower = 0) => ({
    title,
    ta_comment: '',
    student_comment: '',
    lower_clamp: lower,
    default: initial,
    max_value: max,
    upper_clamp: max,
    text: false,
    peer_component: false,
    page: 0,
    is_itempool_linked: false,
    itempool: '',
    marks,
  });
  return [
    {
      id: 'hw_vcs',
      title: 'Homework 1: Hello (git)',
      type: 'Electronic File',
      syllabus_bucket: 'homework',
      ta_grading: true,
      vcs: { repository_type: 'self-hosted', vcs_path: `file://${repositories}/{$gradeable_id}/{$user_id}`, vcs_subdirectory: '' },
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
    // Graded and released: a TA-graded rubric and a Numeric quiz, graded in seedGrades.
    {
      id: 'hw_graded',
      title: 'Homework 0: Warm-up (graded)',
      type: 'Electronic File',
      syllabus_bucket: 'homework',
      ta_grading: true,
      dates: electronic(-21, -14),
      rubric: [
        component('Style', 0, 5, [mark(2, 'Clear names'), mark(3, 'Helpful comments')]),
        component('Design', 4, 4, [mark(-2, 'Global state'), mark(-1, 'Long functions')], -2),
      ],
    },
    {
      id: 'quiz_numeric',
      title: 'Quiz 1',
      type: 'Numeric',
      syllabus_bucket: 'quiz',
      dates: { ta_view_start_date: at(-10), grade_start_date: at(-9), grade_due_date: at(-5), grade_released_date: at(-4) },
      rubric: [component('Question 1', 0, 10), component('Question 2', 0, 5)],
    },
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
async function createDemoRepositories(repositories: string): Promise<void> {
  const files: Record<string, Record<string, string>> = {
    student: { 'hello.sh': 'echo "Hello, ${1:-World}!"\n', 'README.md': '# Homework 1\n' },
    student2: { 'hello.sh': 'echo "Hi there"\n' },
  };
  for (const [userId, contents] of Object.entries(files)) {
    const folder = join(repositories, 'hw_vcs', userId);
    await mkdir(folder, { recursive: true });
    for (const [name, text] of Object.entries(contents)) await writeFile(join(folder, name), text);
  }
}

/** The demo dataset, its students' repositories made in `repositories` (the server's FILE_REPOSITORIES_DIR). */
export async function seedDemoData(repositories: string, now = new Date()): Promise<void> {
  await createDemoRepositories(repositories);
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
  for (const document of demoGradeables(now, repositories)) await uploadGradeable(fall, document, now);
  await seedGrades(fall, now);
  await seedLateDays(fall, now);
  await generateSummaries(fall, now);
}

/**
 * hw_graded: `student` submitted on time (4 of 5 autograding points), `student2` two days late
 * (2 points; one day is covered by an extension, see seedLateDays); the TA graded both. quiz_numeric: the TA entered both students' scores. Every grade
 * goes through the same conditional write, audit entry included, as `POST …/grading/<user_id>`.
 */
async function seedGrades(course: Course, now: Date): Promise<void> {
  const at = (days: number) => new Date(now.getTime() + days * DAY).toISOString();
  const key = gradeableKey(course.term, course.course, 'hw_graded');
  for (const [userId, points, daysLate] of [
    ['student', 4, 0],
    ['student2', 2, 2],
  ] as const) {
    const testCases = [
      {
        name: 'Program runs',
        details: '',
        is_extra_credit: false,
        points_available: 2,
        has_extra_results: false,
        points_received: 2,
        testcase_message: 'Passed',
        autochecks: [],
        hidden: false,
      },
      {
        name: 'Prints a greeting',
        details: '',
        is_extra_credit: false,
        points_available: 3,
        has_extra_results: false,
        points_received: points - 2,
        testcase_message: points === 4 ? 'Partially passed' : 'Failed',
        autochecks: [],
        hidden: false,
      },
    ];
    await putResults(key, userId, { version: 1, testCases, points });
    await dynamo().send(
      new PutCommand({
        TableName: tableName(tables.submissions),
        Item: {
          gradeableKey: key,
          ownerId: userId,
          term: course.term,
          course: course.course,
          gradeableId: 'hw_graded',
          highestVersion: 1,
          activeVersion: 1,
          // What addVersion writes for a student's own submission: their late-day table reads it (byStudent).
          studentKey: studentKey(course.term, course.course, userId),
          activeDaysLate: daysLate,
          versions: [{ version: 1, submittedAt: at(-14.5 + daysLate), submittedBy: userId, daysLate, ticket: 0, state: 'graded', points }],
          activeResults: { version: 1, testCases },
        },
      }),
    );
  }
  const grade = async (gradeableId: string, userId: string, components: [number, number[], number, string][]) => {
    let current: TaGrade | undefined;
    for (const [componentId, markIds, customPoints, message] of components) {
      const after = { mark_ids: markIds, custom_points: customPoints, custom_message: message, grader_id: 'ta', graded_at: at(-8) };
      const next = withComponent(current, componentId, after);
      const owner = { term: course.term, course: course.course, gradeableId, ownerId: userId };
      const entry = {
        revision: next.revision,
        grader_id: 'ta',
        at: after.graded_at,
        component_id: componentId,
        before: current?.components[String(componentId)] ?? null,
        after,
      };
      await transactWrite(saveTaGrade(owner, current?.revision ?? 0, next, entry));
      current = next;
    }
  };
  await grade('hw_graded', 'student', [
    [0, [0, 1], 0, 'Clear and well commented.'],
    [1, [], 0, ''],
  ]);
  await grade('hw_graded', 'student2', [
    [0, [0], 0, 'Comment your functions.'],
    [1, [0], -1, 'Avoid the global counter.'],
  ]);
  await grade('quiz_numeric', 'student', [
    [0, [], 9, ''],
    [1, [], 4.5, 'Half a point off for units.'],
  ]);
  await grade('quiz_numeric', 'student2', [
    [0, [], 6, ''],
    [1, [], 5, ''],
  ]);
}

/**
 * Late days, beside the course's budget of 2: `student2` has a one-day extension on
 * hw_graded (so one of its two days late is charged), and `student` was granted 5 days in all a
 * week ago. Written as `POST …/late-days/<user_id>` and `PUT …/extensions/<user_id>` write them.
 */
async function seedLateDays(course: Course, now: Date): Promise<void> {
  await putExtension(course.term, course.course, 'student2', 'hw_graded', { days: 1, reason: 'Illness (documented)' });
  await putGrant(course.term, course.course, 'student', { since: new Date(now.getTime() - 7 * DAY).toISOString(), allowed: 5 });
}
