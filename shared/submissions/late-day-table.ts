/**
 * Late days over HTTP (issue 16): a course's default budget, a student's grants and extensions,
 * and a student's late-day table (the reference's late-day view: every gradeable's charge).
 */
import { courseGroups, type Course, type Enrollment } from '#shared/courses/course.ts';
import { setDefaultStudentLateDays } from '#shared/data/courses.ts';
import { enrollmentRef } from '#shared/data/enrollments.ts';
import { getItems } from '#shared/data/items.ts';
import { lateDaysRef, putExtension, putGrant } from '#shared/data/late-days.ts';
import { submissionRef } from '#shared/data/submissions.ts';
import { teamMembershipRef } from '#shared/data/teams.ts';
import { accessDenied } from '#shared/errors.ts';
import { courseNotFound } from '#shared/courses/failures.ts';
import { noStudent, notYourSection } from '#shared/tagrading/failures.ts';
import { gradeableNotFound } from '#shared/gradeables/failures.ts';
import type { GradeableDocument } from '#shared/gradeables/gradeable.ts';
import { isVisible } from '#shared/gradeables/listing.ts';
import { gradeablesOfCourse } from '#shared/gradeables/stored.ts';
import { fromLocalTime, parseGradeableDate, toLocalTime } from '#shared/gradeables/time-zone.ts';
import { isValidUserId } from '#shared/users/user.ts';
import { badGrantStart, daysRequired, onlyElectronicLateDays } from './failures.ts';
import { chargeStudent, dueDate, type StudentLateDays } from './late-days.ts';
import type { Submission } from './submission.ts';

/** A count of days the route requires (its input declares it a whole number from 0 to MAX_LATE_DAYS). */
export function requiredDays(value: number | undefined, field: string): number {
  if (value === undefined) throw daysRequired({ field });
  return value;
}

/** Read with the token check: the named student's enrollment and late-day item. */
export function studentLateDayReads(scope: { term: string; course: string }, userId: string | undefined) {
  const id = userId !== undefined && isValidUserId(userId) ? userId : '-';
  return { student: enrollmentRef(scope.term, scope.course, id), lateDays: lateDaysRef(scope.term, scope.course, id) };
}

export interface LoadedStudent {
  readonly student?: Enrollment | undefined;
  readonly lateDays?: StudentLateDays | undefined;
}

/** The named user, when they are a student of the course (dropped students too: their late days still count). */
function requireStudent(userId: string, loaded: LoadedStudent): Enrollment {
  const { student } = loaded;
  if (!isValidUserId(userId) || !student || student.group !== courseGroups.student) {
    throw noStudent({ user_id: userId.slice(0, 64) });
  }
  return student;
}

/** `PUT …/late-days`: the late-day budget every student of the course starts with. */
export async function setCourseLateDays(course: Course, body: { readonly default_student_late_days?: number | undefined }) {
  const days = requiredDays(body.default_student_late_days, 'default_student_late_days');
  if (!(await setDefaultStudentLateDays(course.term, course.course, days))) {
    throw courseNotFound();
  }
  return { default_student_late_days: days };
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
  body: { readonly allowed_late_days?: number | undefined; readonly since?: string | undefined },
  now = new Date(),
) {
  requireStudent(userId, loaded);
  const allowed = requiredDays(body.allowed_late_days, 'allowed_late_days');
  const since = grantStart(body.since, course.timeZone, now);
  await putGrant(course.term, course.course, userId, { since, allowed }, loaded.lateDays);
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
  body: { readonly late_days?: number | undefined; readonly reason_for_exception?: string | undefined },
) {
  const { gradeable } = loaded;
  if (!gradeable) throw gradeableNotFound();
  requireStudent(userId, loaded);
  if (gradeable.type !== 'Electronic File') throw onlyElectronicLateDays();
  const days = requiredDays(body.late_days, 'late_days');
  const reason = days > 0 ? (body.reason_for_exception ?? '') : '';
  await putExtension(course.term, course.course, userId, gradeable.id, days > 0 ? { days, reason } : undefined, loaded.lateDays);
  return { user_id: userId, gradeable_id: gradeable.id, late_day_exceptions: days, reason_for_exception: reason };
}

/** A student's Electronic File gradeables and their submissions (theirs, or their team's). */
export interface StudentWork {
  readonly documents: readonly GradeableDocument[];
  readonly submissions: ReadonlyMap<string, Submission | undefined>;
}

/**
 * Read alongside the token check for `GET …/late-days/{user_id}`: the course's Electronic File
 * gradeables, then the student's submissions of them (a team's waits for the team membership).
 */
export async function studentWork(course: { term: string; course: string }, userId: string): Promise<StudentWork> {
  if (!isValidUserId(userId)) return { documents: [], submissions: new Map() };
  const documents = (await gradeablesOfCourse(course.term, course.course)).filter((document) => document.type === 'Electronic File');
  return { documents, submissions: await submissionsOfStudent(course, userId, documents) };
}

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
    throw notYourSection({ section: student.registrationSection ?? 'NULL' });
  }
  const { documents, submissions } = work;
  return lateDayTable({ course, student, lateDays: loaded.lateDays, documents, submissionOf: (id) => submissions.get(id), now });
}

/** A student's submissions of the given gradeables: their own, or their team's (two round trips when any is a team gradeable). */
async function submissionsOfStudent(course: { term: string; course: string }, userId: string, documents: readonly GradeableDocument[]) {
  const { term, course: code } = course;
  const refs = Object.fromEntries(
    documents.map((document) => [
      document.id,
      document.team_gradeable ? teamMembershipRef(term, code, document.id, userId) : submissionRef(term, code, document.id, userId),
    ]),
  );
  const loaded = (await getItems(refs)) as Record<string, unknown>;
  const teams = documents.filter((document) => document.team_gradeable && loaded[document.id] !== undefined);
  const teamSubmissions = teams.length
    ? await getItems(
        Object.fromEntries(
          teams.map((document) => [
            document.id,
            submissionRef(term, code, document.id, (loaded[document.id] as { teamId: string }).teamId),
          ]),
        ),
      )
    : {};
  return new Map<string, Submission | undefined>(
    documents.map((document) => [
      document.id,
      document.team_gradeable
        ? (teamSubmissions as Record<string, Submission | undefined>)[document.id]
        : (loaded[document.id] as Submission | undefined),
    ]),
  );
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
  submissionOf: (gradeableId: string) => Submission | undefined;
  now: Date;
}) {
  const { course, student, lateDays, documents, now } = input;
  const defaultBudget = course.defaultStudentLateDays ?? 0;
  const { charges, remainingAsOf } = chargeStudent(defaultBudget, lateDays, documents, input.submissionOf, now);
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
