import { courseGroups, type Course, type Enrollment } from '#shared/courses/course.ts';
import { teamsOfMember } from '#shared/data/teams.ts';
import type { GradeableDocument } from './gradeable.ts';
import { repositoryUrl } from './repository.ts';
import { toLocalTime } from './time-zone.ts';
import { REDACTED_FIELD } from './failures.ts';

/** The reference's gradeable list sections. */
export const sections = { FUTURE: 0, BETA: 1, OPEN: 2, CLOSED: 3, GRADING: 4, GRADED: 5 } as const;
type SectionName = keyof typeof sections;

const passed = (instant: string | undefined, now: Date) => instant !== undefined && instant <= now.toISOString();

/**
 * Who sees a gradeable now: instructors always; graders from the TA view date; students once
 * submission has opened (Electronic File) or grades are released (Checkpoints, Numeric).
 */
export function isVisible(document: GradeableDocument, enrollment: Pick<Enrollment, 'group'>, now: Date): boolean {
  const { dates } = document;
  if (enrollment.group === courseGroups.instructor) return true;
  if (enrollment.group < courseGroups.student) return passed(dates.ta_view_start_date, now);
  return document.type === 'Electronic File' ? passed(dates.submission_open_date, now) : passed(dates.grade_released_date, now);
}

export function sectionOf(document: GradeableDocument, now: Date): SectionName {
  const { dates } = document;
  if (!passed(dates.ta_view_start_date, now)) return 'FUTURE';
  if (document.type !== 'Electronic File') return passed(dates.grade_released_date, now) ? 'GRADED' : 'GRADING';
  if (!passed(dates.submission_open_date, now)) return 'BETA';
  if (dates.has_due_date === false || !passed(dates.submission_due_date, now)) return 'OPEN';
  if (passed(dates.grade_released_date, now)) return 'GRADED';
  if (document.ta_grading && passed(dates.grade_start_date, now)) return 'GRADING';
  return 'CLOSED';
}

/**
 * One entry of `GET /api/<term>/<course>/gradeables`, in the fields the reference's editor extension
 * reads. `ownerId`: whose repository it is, the caller's or on team gradeables their team's (none:
 * on no team, so no repository yet).
 */
export function listingEntry(document: GradeableDocument, course: Course, ownerId: string | undefined, now: Date) {
  const section = sectionOf(document, now);
  const due = document.type === 'Electronic File' && document.dates.has_due_date !== false ? document.dates.submission_due_date : undefined;
  return {
    id: document.id,
    title: document.title,
    instructions_url: document.instructions_url,
    syllabus_bucket: document.syllabus_bucket,
    gradeable_type: document.type,
    section: sections[section],
    section_name: section,
    due_date: due ? { date: `${toLocalTime(due, course.timeZone)}.000000`, timezone_type: 3, timezone: course.timeZone } : null,
    vcs_repository:
      document.vcs && ownerId !== undefined
        ? repositoryUrl(document.vcs, { term: course.term, course: course.course, gradeableId: document.id, ownerId })
        : null,
    vcs_subdirectory: document.vcs?.vcs_subdirectory ?? null,
  };
}

/**
 * The gradeables the caller sees now, each with their repository: on team gradeables the one their
 * team submits from, as a submission reads it (`teams`: the caller's team by gradeable id). Pure.
 */
export function gradeableListing(
  documents: readonly GradeableDocument[],
  course: Course,
  enrollment: Enrollment,
  teams: ReadonlyMap<string, string>,
  now: Date,
) {
  const visible = documents.filter((document) => isVisible(document, enrollment, now));
  const ownerOf = (document: GradeableDocument) => (document.team_gradeable ? teams.get(document.id) : enrollment.userId);
  return Object.fromEntries(visible.map((document) => [document.id, listingEntry(document, course, ownerOf(document), now)]));
}

/** The listing, with the caller's teams read for the visible team gradeables with a repository (one batched read, when there are any). */
export async function listGradeables(documents: readonly GradeableDocument[], course: Course, enrollment: Enrollment, now: Date) {
  const teamRepositories = documents
    .filter((document) => document.team_gradeable && document.vcs && isVisible(document, enrollment, now))
    .map((document) => document.id);
  const teams = await teamsOfMember(course.term, course.course, teamRepositories, enrollment.userId);
  return gradeableListing(documents, course, enrollment, teams, now);
}

/** The download form: the stored document with its dates in the course's time zone. */
export function downloadForm(document: GradeableDocument, timeZone: string): GradeableDocument {
  const dates = Object.fromEntries(
    Object.entries(document.dates).map(([name, value]) => [
      name,
      name.endsWith('_date') && typeof value === 'string' ? toLocalTime(value, timeZone) : value,
    ]),
  );
  return { ...document, dates };
}

/**
 * A download for a reader who may not see hidden tests (readsHiddenTests): each hidden test case
 * keeps its name, details, points and limits but loses its `command` and `expect`, and the
 * document says so (`hidden_test_cases_redacted: true`), so that it is never taken for a full one;
 * an upload refuses it. A gradeable without hidden test cases downloads whole.
 */
export function withoutHiddenTests(form: GradeableDocument): GradeableDocument | RedactedDownload {
  const autograding = form.autograding;
  if (!autograding?.test_cases.some((test) => test.is_hidden)) return form;
  const test_cases = autograding.test_cases.map((test) => {
    if (!test.is_hidden) return test;
    const { command: _command, expect: _expect, ...shown } = test;
    return shown;
  });
  return { ...form, autograding: { ...autograding, test_cases }, [REDACTED_FIELD]: true };
}

type TestCaseWithoutSecrets = Omit<NonNullable<GradeableDocument['autograding']>['test_cases'][number], 'command' | 'expect'>;
export type RedactedDownload = Omit<GradeableDocument, 'autograding'> & {
  readonly autograding: Omit<NonNullable<GradeableDocument['autograding']>, 'test_cases'> & {
    readonly test_cases: readonly (NonNullable<GradeableDocument['autograding']>['test_cases'][number] | TestCaseWithoutSecrets)[];
  };
  readonly [REDACTED_FIELD]: true;
};
