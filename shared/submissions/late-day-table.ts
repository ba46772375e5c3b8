/**
 * Late days over HTTP: a course's default budget, a student's grants and extensions,
 * and a student's late-day table (the reference's late-day view: every gradeable's charge).
 */
import { courseGroups, NULL_SECTION, type Course, type Enrollment } from '#shared/courses/course.ts';
import { enrollmentRef } from '#shared/data/enrollments.ts';
import { lateDaysRef, putExtension, putGrant } from '#shared/data/late-days.ts';
import { ltiLateDaysOutbox } from '#shared/lti/score-queue.ts';
import { latenessOfStudent, type ActiveLateness } from '#shared/data/submissions.ts';
import { teamLatenessOfStudent } from '#shared/data/teams.ts';
import { accessDenied, type Refusal } from '#shared/errors.ts';
import { noStudent, notYourSection } from '#shared/tagrading/failures.ts';
import { gradeableNotFound } from '#shared/gradeables/failures.ts';
import type { GradeableDocument } from '#shared/gradeables/gradeable.ts';
import { isVisible } from '#shared/gradeables/listing.ts';
import { gradeablesOfCourse } from '#shared/gradeables/stored.ts';
import { fromLocalTime, parseGradeableDate, toLocalTime } from '#shared/gradeables/time-zone.ts';
import { badGrantStart, onlyElectronicLateDays } from './failures.ts';
import { chargeStudentBy, dueDate, type StudentLateDays } from './late-days.ts';

/** Read with the token check: the named student's enrollment and late-day item. */
export function studentLateDayReads(scope: { term: string; course: string }, userId: string) {
  return { student: enrollmentRef(scope.term, scope.course, userId), lateDays: lateDaysRef(scope.term, scope.course, userId) };
}

export interface LoadedStudent {
  readonly student?: Enrollment | undefined;
  readonly lateDays?: StudentLateDays | undefined;
}

/** The named user, when they are a student of the course (dropped students too: their late days still count). */
function requireStudent(userId: string, loaded: LoadedStudent): Enrollment {
  const { student } = loaded;
  if (!student || student.group !== courseGroups.student) throw noStudent({ user_id: userId });
  return student;
}

/**
 * The instant a grant starts: a date (`YYYY-MM-DD`, its midnight in the course's time zone), a
 * local time as gradeable dates take it, or ISO 8601 with an offset; now when absent.
 */
export function grantStart(since: string | undefined, timeZone: string, now: Date): string {
  if (since === undefined) return now.toISOString();
  const instant = /^\d{4}-\d{2}-\d{2}$/.test(since) ? fromLocalTime(`${since} 00:00:00`, timeZone) : parseGradeableDate(since, timeZone);
  if (!instant) {
    throw badGrantStart({ time_zone: timeZone });
  }
  return instant;
}

/**
 * `POST …/late-days/{user_id}`: from `since` on, the student's budget is `allowed_late_days` in all
 * (a grant from the same instant is replaced). Answers the student's grants.
 */
export async function grantLateDays(
  course: Course,
  userId: string,
  loaded: LoadedStudent,
  body: { readonly allowed_late_days: number; readonly since?: string | undefined },
  now = new Date(),
) {
  requireStudent(userId, loaded);
  const allowed = body.allowed_late_days;
  const since = grantStart(body.since, course.timeZone, now);
  // Late penalties may change the totals sent to linked LMS courses: they are checked again (shared/gradebook/lti-scores.ts).
  const passback = ltiLateDaysOutbox(course, { userId, changedAt: now });
  await putGrant(course.term, course.course, userId, { since, allowed }, loaded.lateDays, passback);
  const grants = [...(loaded.lateDays?.grants ?? []).filter((existing) => existing.since !== since), { since, allowed }].sort(
    (a, b) => Date.parse(a.since) - Date.parse(b.since),
  );
  return { user_id: userId, grants: grants.map((entry) => grantView(entry, course.timeZone)) };
}

/** Read with the token check for an extension: the gradeable besides the student. */
export interface LoadedExtensionTarget extends LoadedStudent {
  readonly gradeable?: GradeableDocument | undefined;
}

/**
 * `PUT …/gradeable/{gradeable_id}/extensions/{user_id}`: the student's extension on an Electronic
 * File gradeable, `late_days` days late that are neither charged nor bad; 0 removes it.
 */
export async function setExtension(
  course: Course,
  userId: string,
  loaded: LoadedExtensionTarget,
  body: { readonly late_days: number; readonly reason_for_exception?: string | undefined },
  now = new Date(),
) {
  const { gradeable } = loaded;
  if (!gradeable) throw gradeableNotFound();
  requireStudent(userId, loaded);
  if (gradeable.type !== 'Electronic File') throw onlyElectronicLateDays();
  const days = body.late_days;
  const reason = days > 0 ? (body.reason_for_exception ?? '') : '';
  // An extension may lift a late penalty, as a grant may: the totals sent to linked LMS courses are checked again.
  const passback = ltiLateDaysOutbox(course, { userId, changedAt: now });
  const extension = days > 0 ? { days, reason } : undefined;
  await putExtension(course.term, course.course, userId, gradeable.id, extension, loaded.lateDays, passback);
  return { user_id: userId, gradeable_id: gradeable.id, late_day_exceptions: days, reason_for_exception: reason };
}

/** A student's Electronic File gradeables and the days late of their active versions (their own, or their team's). */
export interface StudentWork {
  readonly documents: readonly GradeableDocument[];
  /** By gradeable id: the active version's days late; absent or undefined when no version is active. */
  readonly activeDaysLate: ReadonlyMap<string, number | undefined>;
}

/**
 * Read alongside the token check for `GET …/late-days/{user_id}`, all at once: the course's
 * gradeables, the student's own submissions (the Submissions `byStudent` index) and the copies of
 * their teams' submissions on their team entries (the Teams `byStudent` index). Index reads are
 * eventually consistent: a version submitted or chosen an instant ago may not show yet.
 */
export async function studentWork(course: { term: string; course: string }, userId: string): Promise<StudentWork> {
  const [gradeables, own, teams] = await Promise.all([
    gradeablesOfCourse(course.term, course.course),
    latenessOfStudent(course.term, course.course, userId),
    teamLatenessOfStudent(course.term, course.course, userId),
  ]);
  const documents = gradeables.filter((document) => document.type === 'Electronic File');
  return { documents, activeDaysLate: activeDaysLateOf(documents, own, teams) };
}

/**
 * Each gradeable's active days late for one student (pure): their own submission's on individual
 * gradeables, their team's on team gradeables (a gradeable changed between the two kinds keeps
 * only what fits it now).
 */
export function activeDaysLateOf(
  documents: readonly GradeableDocument[],
  own: readonly ActiveLateness[],
  teams: readonly ActiveLateness[],
): Map<string, number | undefined> {
  const byId = (entries: readonly ActiveLateness[]) => new Map(entries.map((entry) => [entry.gradeableId, entry.daysLate]));
  const [ownById, teamsById] = [byId(own), byId(teams)];
  return new Map(documents.map((document) => [document.id, (document.team_gradeable ? teamsById : ownById).get(document.id)]));
}

/** What the late-day table of an id no one can have answers: refused to a student (not their own), no student to others. */
export const noStudentNamed = (userId: string, caller: { enrollment: Enrollment }): Refusal =>
  caller.enrollment.group === courseGroups.student ? accessDenied() : noStudent({ user_id: userId });

/**
 * `GET …/late-days/{user_id}`: the student themself; instructors and full access graders any
 * student; limited access graders the students of the sections they grade.
 */
export function studentLateDayTable(
  course: Course,
  caller: { userId: string; enrollment: Enrollment },
  userId: string,
  loaded: LoadedStudent,
  work: StudentWork,
  now = new Date(),
) {
  const { enrollment } = caller;
  if (userId !== caller.userId && enrollment.group === courseGroups.student) throw accessDenied();
  const student = requireStudent(userId, loaded);
  if (
    userId !== caller.userId &&
    enrollment.group === courseGroups.limitedAccessGrader &&
    !enrollment.gradingSections.includes(student.registrationSection ?? '')
  ) {
    throw notYourSection({ section: student.registrationSection ?? NULL_SECTION });
  }
  const { documents, activeDaysLate } = work;
  return lateDayTable({ course, student, lateDays: loaded.lateDays, documents, activeDaysLateOf: (id) => activeDaysLate.get(id), now });
}

const grantView = (grant: { since: string; allowed: number }, timeZone: string) => ({
  since: toLocalTime(grant.since, timeZone),
  allowed_late_days: grant.allowed,
});

/**
 * The late-day table (pure): the course's default budget, the student's grants, the budget left
 * now, and every Electronic File gradeable with a due date the student can see, in due-date order,
 * charged as the summaries charge it (every Electronic File gradeable counts, seen or not).
 */
export function lateDayTable(input: {
  course: Course;
  student: Enrollment;
  lateDays: StudentLateDays | undefined;
  documents: readonly GradeableDocument[];
  /** The active version's days late of the student's (or their team's) submission; undefined when none is active. */
  activeDaysLateOf: (gradeableId: string) => number | undefined;
  now: Date;
}) {
  const { course, student, lateDays, documents, now } = input;
  const defaultBudget = course.defaultStudentLateDays ?? 0;
  const { charges, remainingAsOf } = chargeStudentBy(defaultBudget, lateDays, documents, input.activeDaysLateOf, now);
  const shown = documents
    .flatMap((document) => {
      const due = dueDate(document);
      const charge = charges.get(document.id);
      return document.type === 'Electronic File' && due !== undefined && charge && isVisible(document, student, now)
        ? [{ document, due, charge }]
        : [];
    })
    .sort((a, b) => Date.parse(a.due) - Date.parse(b.due) || a.document.id.localeCompare(b.document.id));
  return {
    user_id: student.userId,
    default_student_late_days: defaultBudget,
    grants: (lateDays?.grants ?? []).map((grant) => grantView(grant, course.timeZone)),
    late_days_remaining: remainingAsOf,
    gradeables: shown.map(({ document, due, charge }) => {
      const submitted = charge.status !== 'Unsubmitted';
      return {
        id: document.id,
        title: document.title,
        submission_due_date: toLocalTime(due, course.timeZone),
        allowed_late_days: document.dates.late_days ?? 0,
        late_day_exceptions: charge.extension,
        reason_for_exception: charge.reason ?? '',
        days_late: submitted ? charge.daysLate : null,
        days_charged: submitted ? charge.charged : null,
        status: charge.status,
        late_days_remaining: charge.remaining,
      };
    }),
  };
}

/** What `values` says of the active version's lateness and the student's budget; null where it does not apply. */
export interface LateStanding {
  readonly days_late: number | null;
  readonly late_days_charged: number | null;
  readonly late_days_remaining: number | null;
}

/**
 * The active version's days late and charge, and the budget left now, exactly as the student's
 * late-day table says them (pure). `activeDaysLate` is the shown submission's, read strongly
 * consistently, so it stands in for the index's entry of this gradeable, which may lag; a
 * gradeable without late days (not Electronic File) has none, and a reader who is not a student
 * of the course has no budget.
 */
export function lateStanding(input: {
  course: Course;
  student: Enrollment | undefined;
  lateDays: StudentLateDays | undefined;
  work: StudentWork;
  gradeable: GradeableDocument;
  activeDaysLate: number | undefined;
  now: Date;
}): LateStanding {
  const { course, student, lateDays, work, gradeable, activeDaysLate, now } = input;
  if (gradeable.type !== 'Electronic File') return { days_late: null, late_days_charged: null, late_days_remaining: null };
  const daysLate = activeDaysLate === undefined ? null : dueDate(gradeable) === undefined ? 0 : activeDaysLate;
  if (student?.group !== courseGroups.student) return { days_late: daysLate, late_days_charged: null, late_days_remaining: null };
  const documents = [...work.documents.filter((document) => document.id !== gradeable.id), gradeable];
  const activeDaysLateOf = (id: string) => (id === gradeable.id ? activeDaysLate : work.activeDaysLate.get(id));
  const { charges, remainingAsOf } = chargeStudentBy(course.defaultStudentLateDays ?? 0, lateDays, documents, activeDaysLateOf, now);
  return {
    days_late: daysLate,
    late_days_charged: daysLate === null ? null : (charges.get(gradeable.id)?.charged ?? 0),
    late_days_remaining: remainingAsOf,
  };
}
