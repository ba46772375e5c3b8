/**
 * The gradebook of one gradeable: every student's submission state, active version,
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
import {
  chargeGradeable,
  chargeStudent,
  dueDate,
  lateDayGradeable,
  type LateDayCharge,
  type StudentLateDays,
} from '#shared/submissions/late-days.ts';
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
  readonly grading_state: 'queued' | 'grading' | 'graded' | 'failed' | 'superseded' | null;
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
function byOwner(submissions: readonly Submission[], teams: ReadonlyMap<string, string> | undefined) {
  const owners = new Map(submissions.map((submission) => [submission.ownerId, submission]));
  return {
    teamOf: (userId: string) => teams?.get(userId),
    of: (userId: string) => {
      const owner = teams ? teams.get(userId) : userId;
      return owner === undefined ? undefined : owners.get(owner);
    },
  };
}

type Owners = ReturnType<typeof byOwner>;

async function submissionsOf(course: Pick<Course, 'term' | 'course'>, gradeable: GradeableDocument): Promise<Owners> {
  const [submissions, teams] = await Promise.all([
    submissionsOfGradeable(course.term, course.course, gradeable.id),
    gradeable.team_gradeable ? teamsOfGradeable(course.term, course.course, gradeable.id) : undefined,
  ]);
  return byOwner(submissions, teams);
}

/** What a gradebook reads: the gradeable (absent: not found), the course's students and late days, and the submissions that count. */
export interface GradebookData {
  readonly gradeable: GradeableDocument | undefined;
  readonly enrollments: readonly Enrollment[];
  readonly lateDays: readonly StudentLateDays[];
  readonly own: Owners;
  /** On Electronic File gradeables: those due no later, whose late days are charged before it, with their submissions. */
  readonly earlier: readonly { readonly document: GradeableDocument; readonly owners: Owners }[];
}

/**
 * Every read of a gradebook, from the course and the gradeable id alone (so they can start with the
 * token check): the enrollments, the gradeable's submissions, the late days and the course's
 * gradeables at once; then the teams and the earlier gradeables' submissions the gradeable needs.
 */
export async function gradebookReads(course: Pick<Course, 'term' | 'course'>, gradeableId: string): Promise<GradebookData> {
  const { term, course: code } = course;
  const [enrollments, submissions, lateDays, related] = await Promise.all([
    enrollmentsOfCourse(term, code),
    submissionsOfGradeable(term, code, gradeableId),
    lateDaysOfCourse(term, code),
    gradeablesOfCourse(term, code).then(async (documents) => {
      const gradeable = documents.find((document) => document.id === gradeableId);
      if (!gradeable) return undefined;
      const [teams, earlier] = await Promise.all([
        gradeable.team_gradeable ? teamsOfGradeable(term, code, gradeable.id) : undefined,
        Promise.all(
          earlierElectronic(gradeable, documents).map(async (document) => ({ document, owners: await submissionsOf(course, document) })),
        ),
      ]);
      return { gradeable, teams, earlier };
    }),
  ]);
  return {
    gradeable: related?.gradeable,
    enrollments,
    lateDays,
    own: byOwner(submissions, related?.teams),
    earlier: related?.earlier ?? [],
  };
}

/** The other Electronic File gradeables due no later than an Electronic File gradeable (none for other types). Pure. */
export function earlierElectronic(gradeable: GradeableDocument, documents: readonly GradeableDocument[]): GradeableDocument[] {
  if (gradeable.type !== 'Electronic File') return [];
  const dueAt = dueDate(gradeable);
  const due = dueAt === undefined ? Number.POSITIVE_INFINITY : Date.parse(dueAt);
  return documents.filter((document) => {
    const other = dueDate(document);
    return document.type === 'Electronic File' && document.id !== gradeable.id && other !== undefined && Date.parse(other) <= due;
  });
}

/**
 * Every row of the gradebook the grader may see, unsorted. On Electronic File gradeables a
 * student's status depends on the late days charged before it. Pure.
 */
export function gradebookRows(
  course: Course,
  gradeable: GradeableDocument,
  grader: Enrollment,
  data: Omit<GradebookData, 'gradeable'>,
  now = new Date(),
): GradebookRow[] {
  const electronic = gradeable.type === 'Electronic File';
  const others = new Map(data.earlier.map(({ document, owners }) => [document.id, owners]));
  const lateDaysOf = new Map(data.lateDays.map((student) => [student.userId, student]));
  const charged = [gradeable, ...data.earlier.map(({ document }) => document)];
  return visibleStudents(grader, data.enrollments).map((student) => {
    const submission = data.own.of(student.userId);
    const charge = electronic
      ? chargeStudent(
          course.defaultStudentLateDays ?? 0,
          lateDaysOf.get(student.userId),
          charged,
          (id) => (id === gradeable.id ? submission : others.get(id)?.of(student.userId)),
          now,
        ).charges.get(gradeable.id)
      : undefined;
    return gradebookRow(gradeable, student, submission, data.own.teamOf(student.userId), charge);
  });
}

/** Every row of the gradebook of a gradeable read just before (the admin command line). */
export async function loadGradebook(course: Course, gradeable: GradeableDocument, grader: Enrollment, now = new Date()) {
  return gradebookRows(course, gradeable, grader, await gradebookReads(course, gradeable.id), now);
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
