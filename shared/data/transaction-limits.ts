/** What fits one DynamoDB transaction, and the limits derived from it (no imports: the gradeable schema reads them too). */

/** DynamoDB's limit of items in one transaction: a larger one is refused whole. */
export const MAX_TRANSACTION_ITEMS = 100;
/**
 * The most items a version's transaction writes beside one copy per team member and one claim per
 * upload it consumes: the version, its job, an Idempotency-Key's answer, the queue's four (the
 * student's count of jobs, a superseded job, its ticket, its submitter's count) and the gradeable's
 * gate. A team change writes fewer beside its members' entries (the team's entry, a check of its
 * submission, its audit entry).
 */
export const VERSION_OWN_ITEMS = 8;
/** The largest team: every version of it must fit one transaction with its own items. */
export const MAX_TEAM_MEMBERS = MAX_TRANSACTION_ITEMS - VERSION_OWN_ITEMS;

/** How many uploads one version may consume in its transaction beside its own items and its team's copies (`members`: 0 for a student's own). */
export function versionClaimsBudget(members: number): number {
  return Math.max(0, MAX_TRANSACTION_ITEMS - VERSION_OWN_ITEMS - members);
}
