/**
 * Late days as the reference charges them (Submitty's LateDays and LateDayInfo, which Rainbow
 * Grades reads through the summaries): each student has a budget for the course, charged
 * gradeable by gradeable in due-date order, each within the gradeable's own allowance; an
 * instructor may grant a student a new budget from a date on, or an extension on one gradeable.
 */

/** Status as the summaries name it: `Unsubmitted` also for a submission whose versions are all cancelled. */
export type LateDayStatus = 'Good' | 'Late' | 'Bad' | 'Unsubmitted';

/** From `since` on, the student's budget is `allowed` days in all (days already charged count against it). */
export interface LateDayGrant {
  readonly since: string;
  readonly allowed: number;
}

/** An extension for one student on one gradeable: days late that are neither charged nor bad. */
export interface LateDayExtension {
  readonly days: number;
  readonly reason: string;
}

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
 */
export function chargeLateDays(
  initialBudget: number,
  grants: readonly LateDayGrant[],
  gradeables: readonly LateDayGradeable[],
): { readonly charges: ReadonlyMap<string, LateDayCharge>; readonly remaining: number } {
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
  }
  return { charges, remaining };
}

const order = (a: { grant?: unknown; gradeable?: { id: string } }, b: { grant?: unknown; gradeable?: { id: string } }) =>
  a.grant ? (b.grant ? 0 : -1) : b.grant ? 1 : a.gradeable!.id.localeCompare(b.gradeable!.id);
