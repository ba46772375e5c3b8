/**
 * What a submission does next when its transaction was cancelled: one row per item of its plan,
 * saying what that item's failed condition means. Pure.
 */
import type { ItemName, Reason } from './submit-plan.ts';

export type NextStep =
  /** Try the same transaction again (with what was read, after a short pause). */
  | 'retry'
  /** What was read no longer holds: read the submission, the queue and the count again. */
  | 'read again'
  /** The reserved ticket is lost: reserve another. */
  | 'reserve again'
  /** The team changed since its members were read: their copies go to the team as it is now. */
  | 'read the team again'
  /** The queued version is not to be superseded (a regrade's or staff's job): graded whatever comes after. */
  | 'keep the queued version'
  /** The gradeable's gate: a change holds it, or the gradeable was deleted or changed (gates.ts). */
  | 'ask the gate'
  /** Another version took what this one is made of: refused as if sent after it. */
  | 'refuse';

export const AFTER_CANCELLED: Readonly<Record<ItemName, readonly NextStep[]>> = {
  // Another submission took the version number.
  version: ['read again'],
  // A worker found the reserved ticket without its job and voided it.
  job: ['reserve again'],
  // Another request under the same Idempotency-Key went through first: its answer is read, and
  // answered again if this request is the same one, or this one refused as the key's reuse.
  answer: ['read again'],
  copies: ['read the team again'],
  // The student's count changed.
  load: ['read again'],
  // The queued version was graded or taken meanwhile, or is not the student's own.
  supersede: ['keep the queued version', 'read again'],
  giveUp: ['read again'],
  release: ['retry'],
  gate: ['ask the gate'],
  claims: ['refuse'],
};

/** Transactions touching the same items at that moment: a few more tries, then an error that wrote nothing. */
export const CONFLICT_RETRIES = 4;

export type AfterCancelled =
  /** A claim was taken: refused, naming that claim. */
  | { readonly next: 'refuse'; readonly claim: number }
  /** A claim was taken, perhaps by this request's own first try under the same Idempotency-Key: read once more to answer it. */
  | { readonly next: 'read the answer' }
  /** Too many conflicts: the transaction's error, which wrote nothing. */
  | { readonly next: 'fail' }
  | { readonly next: 'try again'; readonly steps: ReadonlySet<NextStep>; readonly conflict: boolean };

/**
 * `reasons`: the items whose condition failed (none: only conflicts with other transactions);
 * `idempotent`: sent with an Idempotency-Key; `claimTakenBefore`: a claim was found taken before
 * (its answer read once more already); `conflicts`: cancellations by conflicts only so far.
 */
export function afterCancelled(
  reasons: readonly Reason[],
  state: { readonly idempotent: boolean; readonly claimTakenBefore: boolean; readonly conflicts: number },
): AfterCancelled {
  const taken = reasons.find((reason) => AFTER_CANCELLED[reason.name].includes('refuse'));
  if (taken) return state.idempotent && !state.claimTakenBefore ? { next: 'read the answer' } : { next: 'refuse', claim: taken.index };
  if (reasons.length === 0) {
    return state.conflicts + 1 > CONFLICT_RETRIES ? { next: 'fail' } : { next: 'try again', steps: new Set(['retry']), conflict: true };
  }
  return { next: 'try again', steps: new Set(reasons.flatMap((reason) => AFTER_CANCELLED[reason.name])), conflict: false };
}
