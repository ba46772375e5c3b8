/**
 * Late days as the reference charges them (its late-day records and per-gradeable late-day view,
 * which Rainbow Grades reads through the summaries; docs/reference-compatibility.md): each student
 * has a budget for the course, charged gradeable by gradeable in due-date order, each within the
 * gradeable's own allowance; an instructor may grant a student a new budget from a date on, or an
 * extension on one gradeable.
 */
import type { LateDayExtension, LateDayGrant, StudentLateDays } from '#shared/data/late-days.ts';
import type { GradeableDocument } from '#shared/gradeables/gradeable.ts';
import type { Submission } from './submission.ts';

export { MAX_LATE_DAYS } from '#shared/courses/limits.ts';
/** `reason_for_exception` is at most this long. */
export const MAX_REASON_LENGTH = 500;

/** Status as the summaries name it: `Unsubmitted` also for a submission whose versions are all cancelled. */
export type LateDayStatus = 'Good' | 'Late' | 'Bad' | 'Unsubmitted';

export type { LateDayExtension, LateDayGrant, StudentLateDays } from '#shared/data/late-days.ts';

export interface LateDayGradeable {
  readonly id: string;
  /** ISO 8601; gradeables without one come last. */
  readonly dueAt: string | undefined;
  /** The gradeable's own allowance (`late_days`). */
  readonly allowed: number;
  /** Days late of the active version; undefined when there is none. */
  readonly daysLate: number | undefined;
  readonly extension?: LateDayExtension | undefined;
}

export interface LateDayCharge {
  readonly status: LateDayStatus;
  readonly daysLate: number;
  readonly charged: number;
  readonly extension: number;
  readonly reason: string | undefined;
  /** The budget left after this gradeable. */
  readonly remaining: number;
}

/**
 * One gradeable's charge, given the budget left before it: late days count only beyond the
 * extension, and are charged when they fit both the gradeable's allowance and the budget;
 * otherwise nothing is charged and the submission is Bad.
 */
export function chargeGradeable(gradeable: LateDayGradeable, remainingBefore: number): LateDayCharge {
  const extension = gradeable.extension?.days ?? 0;
  const reason = gradeable.extension?.reason;
  if (gradeable.daysLate === undefined) {
    return { status: 'Unsubmitted', daysLate: 0, charged: 0, extension, reason, remaining: remainingBefore };
  }
  const daysLate = gradeable.daysLate;
  const budget = Math.min(gradeable.allowed, remainingBefore) + extension;
  const charged = daysLate <= budget ? Math.max(0, daysLate - extension) : 0;
  const status: LateDayStatus = daysLate <= extension ? 'Good' : charged > 0 ? 'Late' : 'Bad';
  return { status, daysLate, charged, extension, reason, remaining: remainingBefore - charged };
}

/**
 * Every gradeable's charge and the budget left at the end. Grants and gradeables are taken in
 * time order (a grant before a gradeable due at the same moment, gradeables of one due date by
 * id); a grant sets the budget to its days less those charged before it, never below 0.
 * `remainingAsOf` is the budget left after the events up to `asOf` (the reference's "late days
 * remaining" counts no grant that starts later); gradeables without a due date count at the end.
 */
export function chargeLateDays(
  initialBudget: number,
  grants: readonly LateDayGrant[],
  gradeables: readonly LateDayGradeable[],
  asOf?: Date,
): { readonly charges: ReadonlyMap<string, LateDayCharge>; readonly remaining: number; readonly remainingAsOf: number } {
  type Event = { at: string | undefined; grant?: LateDayGrant; gradeable?: LateDayGradeable };
  const events: Event[] = [
    ...grants.map((grant) => ({ at: grant.since, grant })),
    ...gradeables.map((gradeable) => ({ at: gradeable.dueAt, gradeable })),
  ];
  events.sort((a, b) => {
    if (a.at === undefined || b.at === undefined) return a.at === b.at ? order(a, b) : a.at === undefined ? 1 : -1;
    return Date.parse(a.at) - Date.parse(b.at) || order(a, b);
  });
  const charges = new Map<string, LateDayCharge>();
  let remaining = initialBudget;
  let remainingAsOf = initialBudget;
  let used = 0;
  for (const event of events) {
    if (event.grant) {
      remaining = Math.max(0, event.grant.allowed - used);
    } else if (event.gradeable) {
      const charge = chargeGradeable(event.gradeable, remaining);
      charges.set(event.gradeable.id, charge);
      remaining = charge.remaining;
      used += charge.charged;
    }
    if (asOf === undefined || event.at === undefined || Date.parse(event.at) <= asOf.getTime()) remainingAsOf = remaining;
  }
  return { charges, remaining, remainingAsOf };
}

const order = (a: { grant?: unknown; gradeable?: { id: string } }, b: { grant?: unknown; gradeable?: { id: string } }) =>
  a.grant ? (b.grant ? 0 : -1) : b.grant ? 1 : (a.gradeable?.id ?? '').localeCompare(b.gradeable?.id ?? '');

/** The due date late days count from (an instant), if the gradeable has one. */
export const dueDate = (document: GradeableDocument): string | undefined =>
  document.dates.has_due_date === false ? undefined : document.dates.submission_due_date;

/** The active version's days late; undefined when there is none (nothing submitted, or cancelled). */
export const activeDaysLate = (submission: Submission | undefined): number | undefined =>
  submission?.versions.find((version) => version.version === submission.activeVersion)?.daysLate;

/** A gradeable as the late-day rules see it for one student: the active version's days late, none when cancelled. */
export function lateDayGradeable(
  document: GradeableDocument,
  submission: Submission | undefined,
  extension: LateDayExtension | undefined,
): LateDayGradeable {
  return lateDayGradeableOf(document, activeDaysLate(submission), extension);
}

/** A gradeable as the late-day rules see it, given the days late of the active version (undefined: none active). */
export function lateDayGradeableOf(
  document: GradeableDocument,
  activeDaysLate: number | undefined,
  extension: LateDayExtension | undefined,
): LateDayGradeable {
  const due = dueDate(document);
  return {
    id: document.id,
    dueAt: due,
    allowed: document.dates.late_days ?? 0,
    daysLate: activeDaysLate !== undefined ? (due !== undefined ? activeDaysLate : 0) : undefined,
    ...(extension && extension.days > 0 ? { extension } : {}),
  };
}

/**
 * One student's late days over every Electronic File gradeable of the course (released or not,
 * as the reference charges them), from the course's default budget and the student's grants and
 * extensions; `asOf` dates the remaining budget.
 */
export function chargeStudent(
  defaultBudget: number,
  lateDays: StudentLateDays | undefined,
  documents: readonly GradeableDocument[],
  submissionOf: (gradeableId: string) => Submission | undefined,
  asOf: Date,
) {
  return chargeStudentBy(defaultBudget, lateDays, documents, (gradeableId) => activeDaysLate(submissionOf(gradeableId)), asOf);
}

/** chargeStudent given each gradeable's active days late (undefined: no active version) rather than its submission. */
export function chargeStudentBy(
  defaultBudget: number,
  lateDays: StudentLateDays | undefined,
  documents: readonly GradeableDocument[],
  activeDaysLateOf: (gradeableId: string) => number | undefined,
  asOf: Date,
) {
  const gradeables = documents
    .filter((document) => document.type === 'Electronic File')
    .map((document) => lateDayGradeableOf(document, activeDaysLateOf(document.id), lateDays?.extensions[document.id]));
  return chargeLateDays(defaultBudget, lateDays?.grants ?? [], gradeables, asOf);
}
