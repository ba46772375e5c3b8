/**
 * The gradebook of one gradeable (issue 16): every student's submission state, active version,
 * autograding and TA scores, late days and grader, ordered by registration section then user id,
 * paged with an opaque cursor. The rules are pure functions; `loadGradebook` does the reads.
 */
import { courseGroups, type Course, type Enrollment } from '#shared/courses/course.ts';
import { enrollmentsOfCourse } from '#shared/data/enrollments.ts';
import { lateDaysOfCourse } from '#shared/data/late-days.ts';
import { submissionsOfGradeable } from '#shared/data/submissions.ts';
import { teamsOfGradeable } from '#shared/data/teams.ts';
import type { GradeableDocument } from '#shared/gradeables/gradeable.ts';
import { gradeablesOfCourse } from '#shared/gradeables/stored.ts';
import { pageOfRows, type Page } from './page.ts';
import { chargeGradeable, chargeStudent, dueDate, lateDayGradeable, type LateDayCharge } from '#shared/submissions/late-days.ts';
import type { Submission } from '#shared/submissions/submission.ts';
import { isTaGraded, taComplete, taScore, totalScore } from '#shared/tagrading/grade.ts';

export { readPage, type Page } from './page.ts';

export interface GradebookRow {
  readonly user_id: string;
  readonly registration_section: string;
  readonly team_id: string | null;
  readonly has_submission: boolean;
  readonly highest_version: number;
  readonly active_version: number;
  readonly grading_state: 'queued' | 'grading' | 'graded' | 'failed' | null;
  readonly autograding_score: number | null;
  readonly tagrading_score: number | null;
  readonly ta_grading_complete: boolean;
  readonly total_score: number;
  readonly days_late: number;
  readonly status: 'Good' | 'Late' | 'Bad' | 'Unsubmitted';
  readonly grader_id: string | null;
}

/**
 * One row: the student's own submission, or on team gradeables their team's. On Electronic File
 * gradeables the status is the late-day charge's, as in the summaries (see late-days.ts); without a
 * charge given, the student has no budget.
 */
export function gradebookRow(
  gradeable: GradeableDocument,
  student: Enrollment,
  submission: Submission | undefined,
  teamId: string | undefined,
  charge: LateDayCharge = chargeGradeable(lateDayGradeable(gradeable, submission, undefined), 0),
): GradebookRow {
  const electronic = gradeable.type === 'Electronic File';
  const active = submission?.versions.find((version) => version.version === submission.activeVersion);
  const results = submission?.activeResults?.version === active?.version ? submission?.activeResults : undefined;
  const autograding = results ? round(results.testCases.reduce((sum, test) => sum + test.points_received, 0)) : null;
  const grade = isTaGraded(gradeable) ? submission?.taGrade : undefined;
  const ta = taScore(gradeable, grade);
  const daysLate = active?.daysLate ?? 0;
  const status = electronic ? charge.status : 'Good';
  const lastGraded = Object.values(grade?.components ?? {}).sort((a, b) => b.graded_at.localeCompare(a.graded_at))[0];
  return {
    user_id: student.userId,
    registration_section: student.registrationSection ?? '',
    team_id: teamId ?? null,
    has_submission: (submission?.highestVersion ?? 0) > 0,
    highest_version: submission?.highestVersion ?? 0,
    active_version: active?.version ?? 0,
    grading_state: active?.state ?? null,
    autograding_score: autograding,
    tagrading_score: ta ?? null,
    ta_grading_complete: taComplete(gradeable, grade),
    total_score: status === 'Bad' ? 0 : totalScore(autograding ?? 0, ta),
    days_late: daysLate,
    status,
    grader_id: lastGraded?.grader_id ?? null,
  };
}

/** Sections compare as numbers when both are, so section 10 follows section 9. */
export function compareRows(
  a: Pick<GradebookRow, 'registration_section' | 'user_id'>,
  b: Pick<GradebookRow, 'registration_section' | 'user_id'>,
): number {
  return compareSections(a.registration_section, b.registration_section) || (a.user_id < b.user_id ? -1 : a.user_id > b.user_id ? 1 : 0);
}

function compareSections(a: string, b: string): number {
  const numeric = /^\d+$/;
  if (numeric.test(a) && numeric.test(b)) return Number(a) - Number(b) || a.localeCompare(b);
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The students a grader sees: instructors and full access graders all, limited access graders their sections. */
export function visibleStudents(grader: Enrollment, enrollments: readonly Enrollment[]): Enrollment[] {
  return enrollments.filter(
    (enrollment) =>
      enrollment.group === courseGroups.student &&
      enrollment.registrationSection !== null &&
      (grader.group !== courseGroups.limitedAccessGrader || grader.gradingSections.includes(enrollment.registrationSection)),
  );
}

/** The page of sorted rows after the cursor, and the cursor of the next page (null at the end). */
export function pageOf(rows: readonly GradebookRow[], page: Page): { rows: GradebookRow[]; next_cursor: string | null } {
  const { items, next } = pageOfRows([...rows].sort(compareRows), page, compareRows);
  return { rows: items, next_cursor: next };
}

/** A gradeable's submissions by owner, and on team gradeables each student's team. */
async function submissionsOf(course: Course, gradeable: GradeableDocument) {
  const [submissions, teams] = await Promise.all([
    submissionsOfGradeable(course.term, course.course, gradeable.id),
    gradeable.team_gradeable ? teamsOfGradeable(course.term, course.course, gradeable.id) : undefined,
  ]);
  const byOwner = new Map(submissions.map((submission) => [submission.ownerId, submission]));
  return {
    teamOf: (userId: string) => teams?.get(userId),
    of: (userId: string) => {
      const owner = teams ? teams.get(userId) : userId;
      return owner === undefined ? undefined : byOwner.get(owner);
    },
  };
}

/**
 * Every row of the gradebook the grader may see, unsorted. On Electronic File gradeables a
 * student's status depends on the late days charged before it: the course's late days and the
 * Electronic File gradeables due no later are read too (one more wave of queries).
 */
export async function loadGradebook(
  course: Course,
  gradeable: GradeableDocument,
  grader: Enrollment,
  now = new Date(),
): Promise<GradebookRow[]> {
  const electronic = gradeable.type === 'Electronic File';
  const [enrollments, own, documents, lateDays] = await Promise.all([
    enrollmentsOfCourse(course.term, course.course),
    submissionsOf(course, gradeable),
    electronic ? gradeablesOfCourse(course.term, course.course) : [],
    electronic ? lateDaysOfCourse(course.term, course.course) : [],
  ]);
  const dueAt = dueDate(gradeable);
  const due = dueAt === undefined ? Number.POSITIVE_INFINITY : Date.parse(dueAt);
  const earlier = documents.filter((document) => {
    const other = dueDate(document);
    return document.type === 'Electronic File' && document.id !== gradeable.id && other !== undefined && Date.parse(other) <= due;
  });
  const others = new Map(await Promise.all(earlier.map(async (document) => [document.id, await submissionsOf(course, document)] as const)));
  const lateDaysOf = new Map(lateDays.map((student) => [student.userId, student]));
  return visibleStudents(grader, enrollments).map((student) => {
    const submission = own.of(student.userId);
    const charge = electronic
      ? chargeStudent(
          course.defaultStudentLateDays ?? 0,
          lateDaysOf.get(student.userId),
          [gradeable, ...earlier],
          (id) => (id === gradeable.id ? submission : others.get(id)?.of(student.userId)),
          now,
        ).charges.get(gradeable.id)
      : undefined;
    return gradebookRow(gradeable, student, submission, own.teamOf(student.userId), charge);
  });
}

const GRADEBOOK_COLUMNS = [
  'user_id',
  'registration_section',
  'team_id',
  'has_submission',
  'highest_version',
  'active_version',
  'grading_state',
  'autograding_score',
  'tagrading_score',
  'ta_grading_complete',
  'total_score',
  'days_late',
  'status',
  'grader_id',
] as const satisfies readonly (keyof GradebookRow)[];

/** The rows as CSV (RFC 4180, a header row), for the admin command line. */
export function gradebookCsv(rows: readonly GradebookRow[]): string {
  const cell = (value: unknown) => {
    const text = value === null || value === undefined ? '' : String(value);
    // A leading =, +, - or @ would be a formula in a spreadsheet.
    const safe = /^[=+\-@]/.test(text) && !/^-?\d/.test(text) ? `'${text}` : text;
    return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
  };
  const lines = [
    GRADEBOOK_COLUMNS.join(','),
    ...[...rows].sort(compareRows).map((row) => GRADEBOOK_COLUMNS.map((column) => cell(row[column])).join(',')),
  ];
  return `${lines.join('\r\n')}\r\n`;
}

const round = (value: number) => Math.round(value * 10_000) / 10_000;
