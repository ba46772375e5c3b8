/**
 * The course's gradebook: a row per student (names, sections, late days used and left) with a cell
 * per gradeable released to staff, in the course's order. Each cell is what the gradeable's own
 * gradebook shows (gradebookRow, with the student's late-day charge over every Electronic File
 * gradeable, as the summaries charge it), plus the gradeable's most points. The rules are pure;
 * `courseGradebookPage` reads one page of students, and the export reads the class page by page.
 */
import { courseGroups, type Course, type Enrollment } from '#shared/courses/course.ts';
import { enrollmentRef } from '#shared/data/enrollments.ts';
import { getItems } from '#shared/data/items.ts';
import { lateDaysRef } from '#shared/data/late-days.ts';
import { submissionRef } from '#shared/data/submissions.ts';
import { teamMembershipRef } from '#shared/data/teams.ts';
import { userRef } from '#shared/data/users.ts';
import type { GradeableDocument } from '#shared/gradeables/gradeable.ts';
import { isVisible } from '#shared/gradeables/listing.ts';
import { gradeableMaxPoints } from '#shared/gradeables/points.ts';
import { encodeCursor, readPageRequest, takeWithin, type PageRequest } from '#shared/paging.ts';
import { activeDaysLate, chargeStudentBy, type StudentLateDays } from '#shared/submissions/late-days.ts';
import type { Submission } from '#shared/submissions/submission.ts';
import { byDueDate } from '#shared/summaries/summary.ts';
import { taComplete } from '#shared/tagrading/grade.ts';
import { gradebookRow, studentsOfPage } from './gradebook.ts';
import { COURSE_GRADEBOOK_PAGE, type CellStatus } from './page.ts';

export interface GradebookCell {
  readonly gradeable_id: string;
  /** The gradeable's gradebook's total_score: autograding plus TA points, 0 when Bad (too late). */
  readonly score: number;
  readonly max: number;
  readonly days_late: number;
  readonly status: CellStatus;
}

export interface CourseGradebookRow {
  readonly user_id: string;
  readonly first_name: string;
  readonly last_name: string;
  readonly registration_section: string;
  readonly rotating_section: string | null;
  readonly late_days_used: number;
  readonly late_days_remaining: number;
  readonly gradeables: readonly GradebookCell[];
}

/** A student of the course gradebook: enrollment and names. */
export interface GradebookPerson {
  readonly userId: string;
  readonly registrationSection: string;
  readonly rotatingSection: string | null;
  readonly givenName: string;
  readonly familyName: string;
}

/** The gradeables staff see now (from their TA view date), in the course's order. Pure. */
export const shownGradeables = (documents: readonly GradeableDocument[], now: Date): GradeableDocument[] =>
  documents.filter((document) => isVisible(document, { group: courseGroups.fullAccessGrader }, now)).sort(byDueDate);

/** The most points a gradeable gives, as staff see it (shared/gradeables/points.ts). Pure. */
export const maxPoints = gradeableMaxPoints;

/** What the rows of some students need, however it was read. */
export interface CourseRowSources {
  readonly submissionOf: (gradeableId: string, userId: string) => Submission | undefined;
  readonly teamOf: (gradeableId: string, userId: string) => string | undefined;
  readonly lateDaysOf: (userId: string) => StudentLateDays | undefined;
}

/**
 * A student's row: each shown gradeable's cell, and the late days charged over every Electronic
 * File gradeable of the course (`documents`, released or not, as the summaries charge them). Pure.
 */
export function courseGradebookRow(
  course: Pick<Course, 'defaultStudentLateDays'>,
  documents: readonly GradeableDocument[],
  shown: readonly GradeableDocument[],
  person: GradebookPerson,
  sources: CourseRowSources,
  now: Date,
): CourseGradebookRow {
  const { userId } = person;
  const { charges, remainingAsOf } = chargeStudentBy(
    course.defaultStudentLateDays ?? 0,
    sources.lateDaysOf(userId),
    documents,
    (id) => activeDaysLate(sources.submissionOf(id, userId)),
    now,
  );
  let used = 0;
  for (const charge of charges.values()) used += charge.charged;
  return {
    user_id: userId,
    first_name: person.givenName,
    last_name: person.familyName,
    registration_section: person.registrationSection,
    rotating_section: person.rotatingSection,
    late_days_used: used,
    late_days_remaining: remainingAsOf,
    gradeables: shown.map((document) => {
      const submission = sources.submissionOf(document.id, userId);
      const row = gradebookRow(document, person, submission, sources.teamOf(document.id, userId), charges.get(document.id));
      const grade = submission?.taGrade;
      const status: CellStatus = row.grading_state ?? (grade && taComplete(document, grade) ? 'graded' : 'no_submission');
      return { gradeable_id: document.id, score: row.total_score, max: maxPoints(document), days_late: row.days_late, status };
    }),
  };
}

export type Page = PageRequest;

/** `page_size` (1–500, 50 by default) and `cursor`: a position of [section, user id]. */
export const readCourseGradebookPage = (query: { readonly page_size?: string; readonly cursor?: string }): Page =>
  readPageRequest(query, { list: 'gradebook', defaultSize: COURSE_GRADEBOOK_PAGE, keys: 2 });

/** The gradeables a page reads: those shown, and every Electronic File one (late days are charged on them all). Pure. */
export const gradeablesRead = (documents: readonly GradeableDocument[], shown: readonly GradeableDocument[]): GradeableDocument[] =>
  documents.filter((document) => shown.includes(document) || document.type === 'Electronic File');

/**
 * One page of the course gradebook: up to `page.size` students of the sections the grader sees,
 * from the enrollments' `bySection` index (one more, to know whether another follows), then in one
 * round of BatchGetItem requests (100 keys each, in parallel) their profiles, enrollments, late days and team
 * memberships, then their submissions of every gradeable read. A page costs 1 Query and about
 * (students × (3 + team gradeables)) / 100 + students × gradeables read / 100 BatchGetItem
 * requests, whatever the class's size. `documents`: the course's gradeables.
 */
export async function courseGradebookPage(
  course: Course,
  documents: readonly GradeableDocument[],
  grader: Pick<Enrollment, 'group' | 'gradingSections'>,
  page: Page,
  now = new Date(),
  /** The gradeables whose cells the rows hold (an export's choice); by default those shownGradeables gives. */
  chosen?: readonly GradeableDocument[],
): Promise<{ gradeables: GradeableDocument[]; rows: CourseGradebookRow[]; next_cursor: string | null }> {
  const shown = chosen ? [...chosen] : shownGradeables(documents, now);
  const { students, more: moreStudents } = await studentsOfPage(course, grader, page);
  const rows = await gradebookRowsOf(course, documents, shown, students, now);
  const items = takeWithin(rows);
  const last = items.at(-1);
  const more = moreStudents || items.length < rows.length;
  return {
    gradeables: shown,
    rows: items,
    next_cursor: more && last ? encodeCursor([last.registration_section, last.user_id]) : null,
  };
}

/**
 * The rows of `students` (from the enrollments' `bySection` index, or read one by one): in one
 * round of BatchGetItem requests their profiles, enrollments, late days and team memberships,
 * then their submissions of every gradeable read.
 */
export async function gradebookRowsOf(
  course: Course,
  documents: readonly GradeableDocument[],
  shown: readonly GradeableDocument[],
  students: readonly { readonly userId: string; readonly registrationSection: string }[],
  now: Date,
): Promise<CourseGradebookRow[]> {
  const { term, course: code } = course;
  const read = gradeablesRead(documents, shown);
  const teamGradeables = read.filter((document) => document.team_gradeable);
  const first = await getItems({
    ...Object.fromEntries(students.map(({ userId }) => [`user ${userId}`, userRef(userId)])),
    ...Object.fromEntries(students.map(({ userId }) => [`late ${userId}`, lateDaysRef(term, code, userId)])),
    // The index holds the registration section only: the rotating section is the enrollment's.
    ...Object.fromEntries(students.map(({ userId }) => [`member ${userId}`, enrollmentRef(term, code, userId)])),
    ...Object.fromEntries(
      teamGradeables.flatMap((document) =>
        students.map(({ userId }) => [`team ${document.id} ${userId}`, teamMembershipRef(term, code, document.id, userId)]),
      ),
    ),
  });
  const loaded = first as Record<string, unknown>;
  const teamOf = (gradeableId: string, userId: string) =>
    (loaded[`team ${gradeableId} ${userId}`] as { teamId: string } | undefined)?.teamId;
  const ownerOf = (document: GradeableDocument, userId: string) => (document.team_gradeable ? teamOf(document.id, userId) : userId);
  const submissionKeys = new Map<string, ReturnType<typeof submissionRef>>();
  for (const document of read) {
    for (const { userId } of students) {
      const owner = ownerOf(document, userId);
      if (owner !== undefined) submissionKeys.set(`${document.id} ${owner}`, submissionRef(term, code, document.id, owner));
    }
  }
  const submissions = submissionKeys.size === 0 ? {} : await getItems(Object.fromEntries(submissionKeys));
  const sources: CourseRowSources = {
    submissionOf: (gradeableId, userId) => {
      const document = read.find((candidate) => candidate.id === gradeableId);
      const owner = document ? ownerOf(document, userId) : undefined;
      return owner === undefined ? undefined : (submissions as Record<string, Submission | undefined>)[`${gradeableId} ${owner}`];
    },
    teamOf,
    lateDaysOf: (userId) => loaded[`late ${userId}`] as StudentLateDays | undefined,
  };
  return students.map((student) => {
    const profile = loaded[`user ${student.userId}`] as { givenName: string; familyName: string } | undefined;
    const person: GradebookPerson = {
      userId: student.userId,
      registrationSection: student.registrationSection,
      rotatingSection: (loaded[`member ${student.userId}`] as Enrollment | undefined)?.rotatingSection ?? null,
      givenName: profile?.givenName ?? '',
      familyName: profile?.familyName ?? '',
    };
    return courseGradebookRow(course, documents, shown, person, sources, now);
  });
}

/** `GET …/gradebook`: the page asked for, with the gradeables its cells are of. */
export async function courseGradebook(
  course: Course,
  documents: readonly GradeableDocument[],
  grader: Enrollment,
  query: { readonly page_size?: string; readonly cursor?: string },
  now = new Date(),
) {
  const { gradeables, rows, next_cursor } = await courseGradebookPage(course, documents, grader, readCourseGradebookPage(query), now);
  return {
    gradeables: gradeables.map((document) => ({ id: document.id, title: document.title, max: maxPoints(document) })),
    students: rows,
    next_cursor,
  };
}
