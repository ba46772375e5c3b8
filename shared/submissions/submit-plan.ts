/**
 * A submission's plan: the items of its one transaction, each named for what it is (the version,
 * its job, the first answer under its Idempotency-Key, the team's copies, the queue's share, the
 * gradeable's gate, the claims), and what a failed condition of the transaction was, by name.
 * Pure: built from what was admitted and read, the ticket reserved, and what the version is made of.
 */
import { putAnswer } from '#shared/data/idempotency.ts';
import { putJob } from '#shared/data/jobs.ts';
import { addVersion, gradeableKey } from '#shared/data/submissions.ts';
import { teamSubmissionCopies } from '#shared/data/teams.ts';
import { namedTransaction, type NamedReason, type TransactItem } from '#shared/data/transactions.ts';
import type { Refusal } from '#shared/errors.ts';
import { firstOfOwner } from '#shared/gradeables/gates.ts';
import { queueShareItems, type QueueShare } from '#shared/queue/shares.ts';
import type { Admitted, SubmissionRead } from './submit-refuse.ts';

/** What a version is made of, beside what every version records. */
export interface VersionContent {
  /** A VCS version's commit: its repository's head when submitted. */
  readonly commit?: string | undefined;
  /** The repository the commit was read from, which the version's gradings check it out from. */
  readonly repository?: string | undefined;
  /** A files version's files id: its files are stored under it before the transaction. */
  readonly files?: string;
  /** What only one version may ever use (an upload, consumed): each item fails its condition once written, refused with `taken`. */
  readonly claims?: readonly { readonly item: TransactItem; readonly taken: Refusal }[];
}

/** The transaction's items by name. */
export interface PlannedItems {
  /** Version n = highest + 1, active: fails when another version took the number meanwhile. */
  readonly version: TransactItem;
  /** The job on the reserved ticket: fails when a worker voided the ticket (it found no job). */
  readonly job: TransactItem;
  /** The answer kept for the Idempotency-Key. */
  readonly answer?: TransactItem;
  /** Each team member's copy of the team's active version: fails when the team changed. */
  readonly copies: readonly TransactItem[];
  readonly load?: TransactItem;
  readonly supersede?: TransactItem;
  readonly giveUp?: TransactItem;
  readonly release?: TransactItem;
  /** The owner's first version must not slip past a change that deletes the gradeable or changes its type (gates.ts). */
  readonly gate?: TransactItem;
  readonly claims: readonly TransactItem[];
}

export type ItemName = keyof PlannedItems;

export interface VersionPlan {
  readonly items: PlannedItems;
  /** The answer, once the transaction went through. */
  readonly answer: string;
  /** The version's number. */
  readonly version: number;
  /** The queued version superseded, if any. */
  readonly supersedes?: number | undefined;
}

export function planVersion(
  admitted: Admitted,
  read: SubmissionRead,
  share: QueueShare,
  ticket: number,
  content: VersionContent,
  members: readonly string[] | undefined,
  now: Date,
): VersionPlan {
  const { owner, gradeable, callerId, target, daysLate, idempotency, counted } = admitted;
  const version = (read.submission?.highestVersion ?? 0) + 1;
  const forSomeoneElse = target !== callerId ? ` for ${target}` : '';
  const answer = `Successfully uploaded version ${version} for ${gradeable.title}${forSomeoneElse}`;
  const commit = {
    ...(content.commit ? { commit: content.commit } : {}),
    ...(content.repository ? { repository: content.repository } : {}),
  };
  const summary = {
    version,
    submittedAt: now.toISOString(),
    submittedBy: callerId,
    daysLate,
    ticket,
    state: 'queued' as const,
    ...commit,
    ...(content.files ? { files: content.files } : {}),
  };
  const items: PlannedItems = {
    version: addVersion(owner, summary, members ? 'team' : 'student', share.supersede?.version),
    job: putJob({
      ticket,
      gradeableKey: gradeableKey(owner.term, owner.course, owner.gradeableId),
      ...owner,
      version,
      ...commit,
      ...(counted ? { countedFor: callerId } : {}),
    }),
    ...(idempotency ? { answer: putAnswer(idempotency.key, { fingerprint: idempotency.fingerprint, data: answer, version }, now) } : {}),
    copies: members ? teamSubmissionCopies(owner, members, { version, daysLate }) : [],
    ...queueShareItems(share),
    // The owner's first version creates their submission; later ones find the item there, which such a change refuses for.
    ...(read.submission === undefined ? { gate: firstOfOwner(owner, gradeable, owner.ownerId) } : {}),
    claims: (content.claims ?? []).map((claim) => claim.item),
  };
  return { items, answer, version, supersedes: share.supersede?.version };
}

/** A failed condition of the transaction: the item's name, and its place among its name's items (copies, claims). */
export type Reason = NamedReason<ItemName>;

const ORDER: readonly ItemName[] = ['version', 'job', 'answer', 'copies', 'load', 'supersede', 'giveUp', 'release', 'gate', 'claims'];

/** The plan's items as one transaction, and the names of the items a cancellation's reasons point at. */
export const transactionOf = (items: PlannedItems) => namedTransaction(ORDER, items);
