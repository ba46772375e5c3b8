/**
 * What a first submission or first TA grade of an owner does when its transaction failed at its
 * gradeable's gate (data/gradeables.ts): a change holds the gates (for the few hundred ms it
 * takes): wait a little and try again within the request; the gradeable was deleted or changed in
 * a way that could strand it: start again from the gradeable as it is now, or refuse.
 */
import { gateOpen, gateState, generationOf } from '#shared/data/gradeables.ts';
import type { TransactItem } from '#shared/data/transactions.ts';
import type { CourseGradeable } from '#shared/ids.ts';
import type { GradeableDocument } from './gradeable.ts';

/** How long a first submission or grade waits for a change of its gradeable to finish before answering that it is busy. */
export const GATE_WAIT_MS = 5_000;
const PAUSE_MS = 100;

export type GateOutcome<D> =
  /** The gate may be open now: try the same transaction again. */
  | { readonly next: 'retry' }
  /** A change held the gate for longer than a request waits. */
  | { readonly next: 'busy' }
  /** The gradeable is gone. */
  | { readonly next: 'deleted' }
  /** The gradeable was changed since it was read: whatever was decided from it must be decided again. */
  | { readonly next: 'changed'; readonly current: D };

/** The gate check for the first item of `ownerId` on the gradeable as read (a document read through stored.ts). */
export const firstOfOwner = (key: Omit<CourseGradeable, 'gradeableId'>, gradeable: GradeableDocument, ownerId: string): TransactItem =>
  gateOpen(key.term, key.course, gradeable, ownerId, new Date());

/** After a transaction failed at the gate of `ownerId`: what to do next (waits first when a change holds the gate). */
export async function atGate<D extends GradeableDocument>(
  key: Omit<CourseGradeable, 'gradeableId'>,
  gradeable: D,
  ownerId: string,
  startedAt: number,
): Promise<GateOutcome<D>> {
  const { closed, current } = await gateState(key.term, key.course, gradeable, ownerId);
  if (!current) return { next: 'deleted' };
  if (generationOf(current) !== generationOf(gradeable)) return { next: 'changed', current };
  if (!closed) return { next: 'retry' };
  if (Date.now() - startedAt >= GATE_WAIT_MS) return { next: 'busy' };
  await new Promise((resolve) => setTimeout(resolve, PAUSE_MS + Math.random() * PAUSE_MS));
  return { next: 'retry' };
}
