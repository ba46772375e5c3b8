/**
 * A submission's last step: its transaction, tried until it goes through, is refused, or finds its
 * gradeable changed (then the submission starts over from the gradeable as it is now). Each try
 * reads (or keeps what still holds), refuses, reserves its ticket in the queue, plans and writes;
 * a cancelled try does what AFTER_CANCELLED says of the items that failed.
 */
import type { StoredAnswer } from '#shared/data/idempotency.ts';
import type { QueueCounters } from '#shared/data/jobs.ts';
import { attemptRefused } from '#shared/data/request-writes.ts';
import { failedConditions, isConflictOnly, transactWrite } from '#shared/data/transactions.ts';
import { gradeableBusy, invalidGradeableId } from '#shared/gradeables/failures.ts';
import { atGate } from '#shared/gradeables/gates.ts';
import type { GradeableDocument } from '#shared/gradeables/gradeable.ts';
import { releaseReserved, reserveForShare } from '#shared/queue/reservation.ts';
import type { QueueShare } from '#shared/queue/shares.ts';
import { laneOf } from '#shared/queue/tickets.ts';
import { notifyWorkers } from '#shared/queue/wake-ups.ts';
import { versionSizeRefusal } from './limits.ts';
import { afterCancelled } from './submit-cancelled.ts';
import { planVersion, transactionOf, type Reason, type VersionContent, type VersionPlan } from './submit-plan.ts';
import { queueRefusal, refuse, repeatRefusal } from './submit-refusals.ts';
import {
  burstOf,
  membersNow,
  queueLimits,
  readForSubmission,
  shareOf,
  type Admitted,
  type CourseBurst,
  type SubmissionRead,
} from './submit-refuse.ts';

const MAX_ATTEMPTS = 200;

/**
 * What a submission answers: the reference's message, and what a representation of the version is
 * read from (its number, its owner, whom it is for). A repeat under an Idempotency-Key whose first
 * answer was kept without its version has none.
 */
export interface SubmitAnswer {
  readonly message: string;
  readonly version: number | undefined;
  readonly owner: Admitted['owner'];
  readonly target: string;
  /** The gradeable as the version was admitted under. */
  readonly gradeable: GradeableDocument;
}

export type Committed =
  | { readonly next: 'answer'; readonly answer: SubmitAnswer }
  /** The gradeable was changed since it was read: its rules (type, version control, teams) are decided again from `gradeable`. */
  | { readonly next: 'start over'; readonly gradeable: GradeableDocument };

/** The first answer under the request's Idempotency-Key, answered again provided it is the same request. */
export async function answerAgain(
  previous: StoredAnswer,
  admitted: Admitted & { idempotency: { fingerprint: string } },
): Promise<SubmitAnswer> {
  refuse(repeatRefusal(previous, admitted.idempotency.fingerprint));
  // The first attempt may have ended between its transaction and its wake-up (its answer lost,
  // its time run out): wake the workers again. A spare wake-up finds nothing more to grade.
  await notifyWorkers(0);
  const { owner, target, gradeable } = admitted;
  return { message: previous.data as string, version: previous.version, owner, target, gradeable };
}

export class VersionCommit {
  /** Whether the reserved ticket may have its job: a transaction that went through, or one whose outcome is unknown. */
  jobMayBeWritten = false;
  /** What was read and still holds for the next try (none: read again). */
  private read: SubmissionRead | undefined;
  /** The ticket, reserved before the transaction and kept until its job is written. */
  private reserved: number | undefined;
  /** Whether the next reservation counts the course's submission this minute (the first one only). */
  private counting: boolean;
  private conflicts = 0;
  /** Whether a claim was found taken once: a retry with the same Idempotency-Key reads the first answer again. */
  private claimTaken = false;
  /** Queued versions found not to be supersedable (a regrade's, or staff's): graded whatever comes after. */
  private readonly keep = new Set<number>();
  private members: readonly string[] | undefined;
  private readonly burst: CourseBurst | undefined;
  private readonly startedAt = Date.now();
  private readonly admitted: Admitted;
  private readonly content: VersionContent;
  private readonly now: Date;

  constructor(admitted: Admitted, first: SubmissionRead, content: VersionContent, now: Date) {
    this.admitted = admitted;
    this.content = content;
    this.now = now;
    this.read = first;
    this.counting = admitted.counted;
    this.members = admitted.members;
    this.burst = burstOf(admitted, first, now);
  }

  async run(): Promise<Committed> {
    try {
      for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
        const committed = await this.attempt(attempt);
        if (committed) return committed;
      }
      throw new Error('Could not queue the submission: too much contention');
    } finally {
      // A reserved ticket no job will take (refused, answered before, out of tries): positions must not count it.
      if (this.reserved !== undefined && !this.jobMayBeWritten) await releaseReserved(this.reserved);
    }
  }

  /** One try: what it committed, or nothing when it is to be tried again. */
  private async attempt(attempt: number): Promise<Committed | undefined> {
    const read = this.read ?? (await readForSubmission(this.admitted));
    this.read = undefined;
    const { idempotency } = this.admitted;
    if (read.previous && idempotency)
      return { next: 'answer', answer: await answerAgain(read.previous, { ...this.admitted, idempotency }) };
    const share = shareOf(this.admitted, read, this.keep, this.burst);
    refuse(queueRefusal(read.submission?.versions ?? [], share, this.now, queueLimits()));
    const ticket = await this.reserve(share, read.queue);
    const plan = planVersion(this.admitted, read, share, ticket, this.content, this.members, this.now);
    const transaction = transactionOf(plan.items);
    this.jobMayBeWritten = true;
    try {
      await transactWrite(transaction.items, { conflictRetries: 0 });
    } catch (error) {
      const failed = failedConditions(error);
      if (failed.length === 0 && !isConflictOnly(error)) {
        // Refused outright (throttled, say; an earlier attempt that went through would have been
        // answered as done under the same client token): no job was written to take the ticket.
        if (attemptRefused(error)) this.jobMayBeWritten = false;
        throw error;
      }
      this.jobMayBeWritten = false;
      return this.cancelled(transaction.reasons(failed), error, read, plan, attempt);
    }
    await notifyWorkers(ticket);
    const { owner, target, gradeable } = this.admitted;
    return { next: 'answer', answer: { message: plan.answer, version: plan.version, owner, target, gradeable } };
  }

  private async reserve(share: QueueShare, queue: QueueCounters): Promise<number> {
    // A ticket reserved for another lane (what was read before changed the share's lane): given up for one in this lane.
    if (this.reserved !== undefined && laneOf(this.reserved) !== share.lane) {
      await releaseReserved(this.reserved);
      this.reserved = undefined;
    }
    const { term, course } = this.admitted.owner;
    this.reserved ??= await reserveForShare(share, this.counting ? { term, course, now: this.now, counters: queue } : undefined);
    this.counting = false;
    return this.reserved;
  }

  /** Does what AFTER_CANCELLED says of the items that failed; a start over, or nothing to try again. */
  private async cancelled(
    reasons: readonly Reason[],
    error: unknown,
    read: SubmissionRead,
    plan: VersionPlan,
    attempt: number,
  ): Promise<Committed | undefined> {
    const { admitted } = this;
    const after = afterCancelled(reasons, {
      idempotent: !!admitted.idempotency,
      claimTakenBefore: this.claimTaken,
      conflicts: this.conflicts,
    });
    if (after.next === 'refuse') throw this.content.claims?.[after.claim]?.taken ?? error;
    if (after.next === 'read the answer') {
      this.claimTaken = true;
      return undefined;
    }
    if (after.next === 'fail') throw error;
    const { steps } = after;
    if (after.conflict) this.conflicts++;
    if (steps.has('ask the gate')) {
      const at = await atGate(admitted.owner, admitted.gradeable, admitted.owner.ownerId, this.startedAt);
      if (at.next === 'busy') throw gradeableBusy();
      if (at.next === 'deleted') throw invalidGradeableId({ gradeable_id: admitted.gradeableId });
      if (at.next === 'changed') return { next: 'start over', gradeable: at.current };
    }
    if (steps.has('reserve again')) this.reserved = undefined;
    if (steps.has('read the team again')) {
      this.members = await membersNow(admitted);
      refuse(versionSizeRefusal(this.members.length, admitted.claims));
    }
    if (steps.has('keep the queued version') && plan.supersedes !== undefined) this.keep.add(plan.supersedes);
    if (!steps.has('read again')) this.read = read;
    await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(50, 2 + attempt * 2)));
    return undefined;
  }
}
