/**
 * The gradebook of one gradeable: every student's submission state, active version,
 * autograding and TA scores, late days and grader, ordered by registration section then user id,
 * paged with an opaque cursor. The rules are pure functions; `gradebookPage` reads one page
 * (what it reads grows with the page, not the class), `loadGradebook` the whole of it.
 */
import { courseGroups, type Course, type Enrollment } from '#shared/courses/course.ts';
import { enrollmentsOfCourse, sectionOrder, studentsBySection } from '#shared/data/enrollments.ts';
import { getItems } from '#shared/data/items.ts';
import { lateDaysOfCourse, lateDaysRef } from '#shared/data/late-days.ts';
import { activeDaysLateOf } from '#shared/data/lateness.ts';
import { submissionRef, submissionsOfGradeable } from '#shared/data/submissions.ts';
import { teamMembershipRef, teamsOfGradeable } from '#shared/data/teams.ts';
import type { GradeableDocument } from '#shared/gradeables/gradeable.ts';
import { gradeablesOfCourse } from '#shared/gradeables/stored.ts';
import { encodeCursor, takeWithin } from '#shared/paging.ts';
import { csvLine } from './csv.ts';
import { pageOfRows, type Page } from './page.ts';
import {
  activeDaysLate,
  chargeGradeable,
  chargeStudentBy,
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

/** A student as the gradebook lists them. */
export type GradebookStudent = Pick<Enrollment, 'userId' | 'registrationSection'>;

/**
 * One row: the student's own submission, or on team gradeables their team's. On Electronic File
 * gradeables the status and days late are the late-day charge's, as in the summaries (see
 * late-days.ts: without a due date, no day is late); without a charge given, the student has no
 * budget.
 */
export function gradebookRow(
  gradeable: GradeableDocument,
  student: GradebookStudent,
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
    days_late: electronic ? charge.daysLate : 0,
    status,
    grader_id: lastGraded?.grader_id ?? null,
  };
}

/**
 * Sections that are numbers first, by number, then the others by their characters; then user id.
 * The same order as the enrollments' `bySection` index, which pages read.
 */
export function compareRows(
  a: Pick<GradebookRow, 'registration_section' | 'user_id'>,
  b: Pick<GradebookRow, 'registration_section' | 'user_id'>,
): number {
  const first = sectionOrder(a.registration_section, a.user_id);
  const second = sectionOrder(b.registration_section, b.user_id);
  return first < second ? -1 : first > second ? 1 : 0;
}

/** Whether the grader sees only some sections (limited access graders: the sections they grade). */
export const limitedTo = (grader: Pick<Enrollment, 'group' | 'gradingSections'>): readonly string[] | undefined =>
  grader.group === courseGroups.limitedAccessGrader ? grader.gradingSections : undefined;

/** The students a grader sees: instructors and full access graders all, limited access graders their sections. */
export function visibleStudents(grader: Enrollment, enrollments: readonly Enrollment[]): Enrollment[] {
  const sections = limitedTo(grader);
  return enrollments.filter(
    (enrollment) =>
      enrollment.group === courseGroups.student &&
      enrollment.registrationSection !== null &&
      (sections === undefined || sections.includes(enrollment.registrationSection)),
  );
}

/** The page of sorted rows after the cursor, and the cursor of the next page (null at the end). */
export function pageOf(rows: readonly GradebookRow[], page: Page): { rows: GradebookRow[]; next_cursor: string | null } {
  const { items, next } = pageOfRows([...rows].sort(compareRows), page, compareRows);
  return { rows: items, next_cursor: next };
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

/** What the rows of some students need, however it was read. */
export interface RowSources {
  /** The students the grader sees (of the page, or all). */
  readonly students: readonly GradebookStudent[];
  /** The submission that counts for a student: their own, or their team's. */
  readonly submissionOf: (userId: string) => Submission | undefined;
  /** On team gradeables, the student's team. */
  readonly teamOf: (userId: string) => string | undefined;
  readonly lateDaysOf: (userId: string) => StudentLateDays | undefined;
  /** The gradeables whose late days are charged before it (earlierElectronic). */
  readonly earlier: readonly GradeableDocument[];
  /** A student's active days late on one of `earlier`. */
  readonly earlierDaysLateOf: (gradeableId: string, userId: string) => number | undefined;
}

/**
 * The rows of the sources' students, in their order. On Electronic File gradeables a student's
 * status depends on the late days charged before it. Pure.
 */
export function gradebookRows(course: Course, gradeable: GradeableDocument, sources: RowSources, now = new Date()): GradebookRow[] {
  const electronic = gradeable.type === 'Electronic File';
  const charged = [gradeable, ...sources.earlier];
  return sources.students.map((student) => {
    const submission = sources.submissionOf(student.userId);
    const charge = electronic
      ? chargeStudentBy(
          course.defaultStudentLateDays ?? 0,
          sources.lateDaysOf(student.userId),
          charged,
          (id) => (id === gradeable.id ? activeDaysLate(submission) : sources.earlierDaysLateOf(id, student.userId)),
          now,
        ).charges.get(gradeable.id)
      : undefined;
    return gradebookRow(gradeable, student, submission, sources.teamOf(student.userId), charge);
  });
}

/** A page's students, by section then user id (a limited access grader's sections only), and whether more follow. */
export async function studentsOfPage(course: Course, grader: Pick<Enrollment, 'group' | 'gradingSections'>, page: Page) {
  const [section = '', user = ''] = page.after ?? [];
  const listed = await studentsBySection(course.term, course.course, {
    after: page.after ? [section, user] : undefined,
    sections: limitedTo(grader),
    limit: page.size + 1,
  });
  const students = listed.slice(0, page.size);
  return { students, more: listed.length > students.length };
}

/**
 * One page of the gradebook: the page's students from the enrollments' `bySection` index (one more
 * than the page, to know whether another follows), then at once their submissions (on team
 * gradeables after their teams), late days, and active days late on the gradeables charged
 * before it. Every read is of the page's students, so a page costs the same in a class of 500 or
 * of 5,000. `documents`: the course's gradeables.
 */
export async function gradebookPage(
  course: Course,
  gradeable: GradeableDocument,
  documents: readonly GradeableDocument[],
  grader: Enrollment,
  page: Page,
  now = new Date(),
): Promise<{ rows: GradebookRow[]; next_cursor: string | null }> {
  const { term, course: code } = course;
  const { students, more: moreStudents } = await studentsOfPage(course, grader, page);
  const userIds = students.map((student) => student.userId);
  const electronic = gradeable.type === 'Electronic File';
  const earlier = earlierElectronic(gradeable, documents);
  const [owned, lateDays, earlierDaysLateOf] = await Promise.all([
    submissionsOfStudents(course, gradeable, userIds),
    electronic
      ? getItems(Object.fromEntries(userIds.map((userId) => [userId, lateDaysRef(term, code, userId)])))
      : ({} as Record<string, StudentLateDays | undefined>),
    earlier.length > 0 && userIds.length > 0
      ? activeDaysLateOf(
          term,
          code,
          earlier.map((document) => ({ id: document.id, team: Boolean(document.team_gradeable) })),
          userIds,
        )
      : () => undefined,
  ]);
  const rows = gradebookRows(
    course,
    gradeable,
    { students, ...owned, lateDaysOf: (userId) => lateDays[userId], earlier, earlierDaysLateOf },
    now,
  );
  const items = takeWithin(rows);
  const last = items.at(-1);
  const more = moreStudents || items.length < rows.length;
  return { rows: items, next_cursor: more && last ? encodeCursor([last.registration_section, last.user_id]) : null };
}

/** The submissions that count for some students of a gradeable: their own, or on team gradeables their team's (their membership read first). */
async function submissionsOfStudents(
  course: Pick<Course, 'term' | 'course'>,
  gradeable: GradeableDocument,
  userIds: readonly string[],
): Promise<Pick<RowSources, 'submissionOf' | 'teamOf'>> {
  const { term, course: code } = course;
  const teams = new Map<string, string>();
  if (gradeable.team_gradeable && userIds.length > 0) {
    const memberships = await getItems(
      Object.fromEntries(userIds.map((userId) => [userId, teamMembershipRef(term, code, gradeable.id, userId)])),
    );
    for (const userId of userIds) {
      const membership = memberships[userId];
      if (membership) teams.set(userId, membership.teamId);
    }
  }
  const ownerOf = (userId: string) => (gradeable.team_gradeable ? teams.get(userId) : userId);
  const owners = [...new Set(userIds.map(ownerOf).filter((owner) => owner !== undefined))];
  const submissions =
    owners.length === 0
      ? {}
      : await getItems(Object.fromEntries(owners.map((owner) => [owner, submissionRef(term, code, gradeable.id, owner)])));
  return {
    teamOf: (userId) => teams.get(userId),
    submissionOf: (userId) => {
      const owner = ownerOf(userId);
      return owner === undefined ? undefined : submissions[owner];
    },
  };
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

/** What the whole gradebook reads: the gradeable (absent: not found), the course's students and late days, and the submissions that count. */
export interface GradebookData {
  readonly gradeable: GradeableDocument | undefined;
  readonly enrollments: readonly Enrollment[];
  readonly lateDays: readonly StudentLateDays[];
  readonly own: Owners;
  /** On Electronic File gradeables: those due no later, whose late days are charged before it, with their submissions. */
  readonly earlier: readonly { readonly document: GradeableDocument; readonly owners: Owners }[];
}

/**
 * Every read of the whole gradebook at once (the admin's export): the enrollments, the gradeable's
 * submissions, the late days and the course's gradeables; then the teams and the earlier
 * gradeables' submissions the gradeable needs. Reads the class, not a page.
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

/** The sources of every row the grader may see, from the whole gradebook's reads. Pure. */
export function wholeSources(grader: Enrollment, data: Omit<GradebookData, 'gradeable'>): RowSources {
  const others = new Map(data.earlier.map(({ document, owners }) => [document.id, owners]));
  const lateDaysOf = new Map(data.lateDays.map((student) => [student.userId, student]));
  return {
    students: visibleStudents(grader, data.enrollments),
    submissionOf: data.own.of,
    teamOf: data.own.teamOf,
    lateDaysOf: (userId) => lateDaysOf.get(userId),
    earlier: data.earlier.map(({ document }) => document),
    earlierDaysLateOf: (gradeableId, userId) => activeDaysLate(others.get(gradeableId)?.of(userId)),
  };
}

/** Every row of the gradebook of a gradeable read just before (the admin command line), unsorted. */
export async function loadGradebook(course: Course, gradeable: GradeableDocument, grader: Enrollment, now = new Date()) {
  return gradebookRows(course, gradeable, wholeSources(grader, await gradebookReads(course, gradeable.id)), now);
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
  return [GRADEBOOK_COLUMNS, ...[...rows].sort(compareRows).map((row) => GRADEBOOK_COLUMNS.map((column) => row[column]))]
    .map(csvLine)
    .join('');
}

const round = (value: number) => Math.round(value * 10_000) / 10_000;
