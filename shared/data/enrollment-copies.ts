/**
 * Copies of user, course and term fields kept on enrollment items, so that the users, graders and
 * courses lists are one Query. A copy is a map with `v: COPY_VERSION`; an item without
 * one (written before the copies, or invalidated by a change in progress) is answered from the
 * source items instead, so a reader never sees a copy that disagrees with its source.
 *
 * Changing a copied source (`changeCopiedSource`) cannot be one transaction (a term may have
 * thousands of enrollments), so it runs in steps that leave every copy either right or absent:
 * 1. mark the source `copyPending` with a token of this change (no copy may be filled meanwhile),
 *    unless another change holds the mark (it waits for that one, so that changes at once take
 *    turns instead of taking the mark from each other for ever; a mark left by a crash is taken
 *    over once its hold, `copyPendingUntil`, is past);
 * 2. remove the copy from every enrollment holding one;
 * 3. write the source, bump its `copyRev`, clear `copyPending` (only if the token is still ours:
 *    else another change took over a mark held too long and this one starts again);
 * 4. fill the copies, in transactions that check every source copied still has the `copyRev` the
 *    copy was made from and no change pending.
 * A crash or a lost race between the steps leaves copies removed (readers fall back), never stale.
 */
import { randomUUID } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { inGroups } from '#shared/lists.ts';
import { dynamo } from './client.ts';
import type { Item, ItemRef } from './items.ts';
import { tableName } from './tables.ts';
import { failedConditions, isConflictOnly, transactWrite, type TransactItem } from './transactions.ts';

export const COPY_VERSION = 1;

/** The profile fields the users and graders lists print. */
export interface MemberCopy {
  readonly givenName: string;
  readonly familyName: string;
  readonly email: string;
}

/** The course and term fields `GET /api/courses` prints and orders by (term ones null for no term). */
export interface ListingCopy {
  readonly displayName: string;
  readonly archived: boolean;
  readonly termName: string | null;
  readonly termStart: string | null;
}

export type CopyAttribute = 'memberCopy' | 'listingCopy';

/** A copy as stored, or undefined for an item without a usable one. */
export function storedCopy(value: unknown): Item | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const copy = value as Item;
  return copy.v === COPY_VERSION ? copy : undefined;
}

export const memberCopyOf = (user: MemberCopy): MemberCopy => ({
  givenName: user.givenName,
  familyName: user.familyName,
  email: user.email,
});

export const listingCopyOf = (
  course: { displayName: string; archived: boolean },
  term: { name: string; startDate: string } | undefined,
): ListingCopy => ({
  displayName: course.displayName,
  archived: course.archived,
  termName: term?.name ?? null,
  termStart: term?.startDate ?? null,
});

export const decodeMemberCopy = (value: unknown): MemberCopy | undefined => {
  const copy = storedCopy(value);
  return copy && { givenName: copy.givenName as string, familyName: copy.familyName as string, email: copy.email as string };
};

export const decodeListingCopy = (value: unknown): ListingCopy | undefined => {
  const copy = storedCopy(value);
  return (
    copy && {
      displayName: copy.displayName as string,
      archived: copy.archived === true,
      termName: (copy.termName as string | null | undefined) ?? null,
      termStart: (copy.termStart as string | null | undefined) ?? null,
    }
  );
};

export const storableCopy = (copy: MemberCopy | ListingCopy): Item => ({ v: COPY_VERSION, ...copy });

/** A source item a copy is made from, with the revision it was read at (0: never changed). */
export interface SourceRevision {
  readonly tableName: string;
  readonly key: Record<string, unknown>;
  readonly rev: number;
}

export const revisionOf = (tableName: string, key: Record<string, unknown>, item: Item | undefined): SourceRevision => ({
  tableName,
  key,
  rev: (item?.copyRev as number | undefined) ?? 0,
});

/** Reads a source's revision (with whatever else is read): what a copy made from it is checked against. */
export const revisionRef = (ref: ItemRef<unknown>): ItemRef<SourceRevision> => ({
  table: ref.table,
  key: ref.key,
  decode: (item) => revisionOf(tableName(ref.table), ref.key, item),
});

/** Passes while the source still has that revision and no change in progress (absent sources pass only as absent). */
export function sourceUnchanged(source: SourceRevision, exists: boolean): TransactItem {
  const keyName = Object.keys(source.key)[0] ?? '';
  const condition = !exists
    ? { ConditionExpression: 'attribute_not_exists(#key)', ExpressionAttributeNames: { '#key': keyName } }
    : source.rev === 0
      ? {
          ConditionExpression: 'attribute_exists(#key) AND attribute_not_exists(copyRev) AND attribute_not_exists(copyPending)',
          ExpressionAttributeNames: { '#key': keyName },
        }
      : { ConditionExpression: 'copyRev = :rev AND attribute_not_exists(copyPending)', ExpressionAttributeValues: { ':rev': source.rev } };
  return { ConditionCheck: { TableName: source.tableName, Key: source.key, ...condition } };
}

/** An enrollment item holding (or to hold) a copy. */
export interface CopyHolder {
  readonly tableName: string;
  readonly key: { courseId: string; userId: string };
}

/** Copies to fill together: the holders and what each gets, guarded by `checks` (one per source copied). */
export interface CopyFill {
  readonly checks: TransactItem[];
  readonly holders: readonly { holder: CopyHolder; copy: MemberCopy | ListingCopy }[];
}

const TRANSACTION_LIMIT = 100;
const PARALLEL_WRITES = 16;
const CHANGE_ATTEMPTS = 5;
/** How long a change's mark holds the source against other changes (longer than any change takes). */
const PENDING_HOLD_MS = 15_000;
/** How many times a change waits for another one that holds the mark, and the longest single wait. */
const WAITS = 25;
const LONGEST_WAIT_MS = 1_000;

/** Removes an enrollment's copy (readers then answer from the source), if the enrollment exists. */
export async function removeCopy(holder: CopyHolder, attribute: CopyAttribute): Promise<void> {
  try {
    await dynamo().send(
      new UpdateCommand({
        TableName: holder.tableName,
        Key: holder.key,
        UpdateExpression: 'REMOVE #copy',
        ConditionExpression: 'attribute_exists(courseId)',
        ExpressionAttributeNames: { '#copy': attribute },
      }),
    );
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
}

/**
 * Fills copies; a transaction whose sources changed meanwhile is dropped (its holders stay without
 * copies). Answers the holders that got their copy and those dropped so.
 */
export async function fillCopies(
  attribute: CopyAttribute,
  fills: readonly CopyFill[],
): Promise<{ filled: CopyHolder[]; dropped: CopyHolder[] }> {
  const transactions: { items: TransactItem[]; holders: CopyHolder[] }[] = [];
  for (const { checks, holders } of fills) {
    const room = TRANSACTION_LIMIT - checks.length;
    for (let start = 0; start < holders.length; start += room) {
      const part = holders.slice(start, start + room);
      transactions.push({
        holders: part.map(({ holder }) => holder),
        items: [
          ...checks,
          ...part.map(({ holder, copy }) => ({
            Update: {
              TableName: holder.tableName,
              Key: holder.key,
              UpdateExpression: 'SET #copy = :copy',
              ConditionExpression: 'attribute_exists(courseId)',
              ExpressionAttributeNames: { '#copy': attribute },
              ExpressionAttributeValues: { ':copy': storableCopy(copy) },
            },
          })),
        ],
      });
    }
  }
  const outcome = { filled: [] as CopyHolder[], dropped: [] as CopyHolder[] };
  await inGroups(transactions, PARALLEL_WRITES, async ({ items, holders }) => {
    try {
      await transactWrite(items);
      outcome.filled.push(...holders);
    } catch (error) {
      if (!(error instanceof Error && error.name === 'TransactionCanceledException')) throw error;
      outcome.dropped.push(...holders);
    }
  });
  return outcome;
}

export interface SourceChange {
  readonly tableName: string;
  readonly key: Record<string, unknown>;
  /** `SET` clauses of the change, e.g. `archived = :archived`. */
  readonly set: string;
  readonly values: Record<string, unknown>;
  readonly names?: Record<string, string>;
  readonly attribute: CopyAttribute;
  /** The enrollments holding copies of the source. */
  readonly holders: () => Promise<CopyHolder[]>;
  /** What to fill once the source is written (`item`: the source as written, with its new revision). */
  readonly fills: (item: Item, holders: CopyHolder[], self: SourceRevision) => Promise<CopyFill[]>;
  /**
   * Items written in the same transaction as the source (an audit entry), made from the source as
   * it was when the change began: nothing else changes it until the change is written.
   */
  readonly alongside?: (before: Item) => readonly TransactItem[];
  /**
   * What the source must still be when the change begins (the fields it was read with); when it is
   * not, the change throws `SourceChanged` and writes nothing.
   */
  readonly asRead?: { readonly condition: string; readonly values: Record<string, unknown> };
}

/** The source no longer is what the change was made from (SourceChange's `asRead`). */
export class SourceChanged extends Error {
  override readonly name = 'SourceChanged';
}

/**
 * Changes an existing source item and its copies on enrollment items (steps in the module
 * comment). Returns the source as written, or undefined when there is no such item.
 */
export async function changeCopiedSource(change: SourceChange): Promise<Item | undefined> {
  const keyName = Object.keys(change.key)[0] ?? '';
  // One token for every attempt of this change: an attempt whose write lost takes its own mark again.
  const token = randomUUID();
  let waits = 0;
  for (let attempt = 1; ; attempt++) {
    const now = Date.now();
    let before: Item;
    try {
      const { Attributes } = await dynamo().send(
        new UpdateCommand({
          TableName: change.tableName,
          Key: change.key,
          UpdateExpression: 'SET copyPending = :token, copyPendingUntil = :until',
          // A mark without a hold is one an earlier version of this code left: taken over as before.
          ConditionExpression: `attribute_exists(#key) AND (attribute_not_exists(copyPending) OR copyPending = :token OR attribute_not_exists(copyPendingUntil) OR copyPendingUntil < :now)${change.asRead ? ` AND (${change.asRead.condition})` : ''}`,
          ExpressionAttributeNames: { '#key': keyName },
          ExpressionAttributeValues: { ':token': token, ':until': now + PENDING_HOLD_MS, ':now': now, ...change.asRead?.values },
          ReturnValues: change.alongside ? 'ALL_NEW' : 'NONE',
        }),
      );
      before = Attributes ?? {};
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      const { Item: current } = await dynamo().send(new GetCommand({ TableName: change.tableName, Key: change.key, ConsistentRead: true }));
      if (!current) return undefined;
      const marked =
        current.copyPending !== undefined &&
        current.copyPending !== token &&
        typeof current.copyPendingUntil === 'number' &&
        current.copyPendingUntil >= now;
      if (change.asRead && !marked) throw new SourceChanged(`${JSON.stringify(change.key)} changed since it was read`);
      // Another change holds the mark: this one waits for it to finish.
      if (++waits > WAITS) {
        throw new Error(`${change.tableName} ${JSON.stringify(change.key)} stayed marked by another change`, { cause: error });
      }
      attempt--;
      await new Promise((resolve) => setTimeout(resolve, Math.min(LONGEST_WAIT_MS, 10 * 2 ** Math.min(waits, 10)) * (0.5 + Math.random())));
      continue;
    }
    const holders = await change.holders();
    await inGroups(holders, PARALLEL_WRITES, (holder) => removeCopy(holder, change.attribute));
    let item: Item;
    const write = {
      TableName: change.tableName,
      Key: change.key,
      UpdateExpression: `SET ${change.set}, copyRev = if_not_exists(copyRev, :zero) + :one REMOVE copyPending, copyPendingUntil`,
      ConditionExpression: 'copyPending = :token',
      ExpressionAttributeNames: change.names,
      ExpressionAttributeValues: { ...change.values, ':token': token, ':zero': 0, ':one': 1 },
    };
    try {
      if (change.alongside) {
        await transactWrite([{ Update: write }, ...change.alongside(before)], { conflictRetries: 0 });
        // As written, or changed again since (the fills check the revision they copy).
        const { Item: written } = await dynamo().send(
          new GetCommand({ TableName: change.tableName, Key: change.key, ConsistentRead: true }),
        );
        item = written ?? {};
      } else {
        const { Attributes } = await dynamo().send(new UpdateCommand({ ...write, ReturnValues: 'ALL_NEW' }));
        item = Attributes ?? {};
      }
    } catch (error) {
      const lost = error instanceof ConditionalCheckFailedException || failedConditions(error).includes(0) || isConflictOnly(error);
      if (!lost || attempt >= CHANGE_ATTEMPTS) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * 2 ** attempt));
      continue;
    }
    await fillCopies(change.attribute, await change.fills(item, holders, revisionOf(change.tableName, change.key, item)));
    return item;
  }
}
