import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { dynamo } from './client.ts';

export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

const CONFLICT_RETRIES = 4;

/**
 * Writes all items or none. A transaction cancelled only because another one touched the same
 * items at that moment is retried (`conflictRetries` times: callers that choose other items on a
 * conflict pass 0); any other cancellation is thrown for the caller to interpret.
 *
 * Retrying is safe both ways: a cancellation is DynamoDB refusing the whole transaction,
 * so a new one cannot apply it twice; and within one command the SDK gives the transaction a
 * `ClientRequestToken`, so its own retry of an attempt left without an answer (a time-out) is
 * applied at most once. A command that ends without an answer is recorded as an unknown outcome
 * (request-writes.ts) and the request answers `UNKNOWN_OUTCOME`, never `RETRYABLE`.
 */
export async function transactWrite(items: TransactItem[], options: { conflictRetries?: number } = {}): Promise<void> {
  const retries = options.conflictRetries ?? CONFLICT_RETRIES;
  for (let attempt = 0; ; attempt++) {
    try {
      await dynamo().send(new TransactWriteCommand({ TransactItems: items }));
      return;
    } catch (error) {
      if (attempt >= retries || !isConflictOnly(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * 2 ** attempt));
    }
  }
}

/** The indexes of the items whose condition failed, when that is why the transaction was cancelled. */
export function failedConditions(error: unknown): number[] {
  if (!(error instanceof TransactionCanceledException)) return [];
  return (error.CancellationReasons ?? []).flatMap((reason, index) => (reason.Code === 'ConditionalCheckFailed' ? [index] : []));
}

/** A transaction cancelled only because others touched its items at that moment (retried a few times already). */
export function isConflictOnly(error: unknown): boolean {
  if (!(error instanceof TransactionCanceledException)) return false;
  const codes = (error.CancellationReasons ?? []).map((reason) => reason.Code ?? 'None');
  return codes.includes('TransactionConflict') && codes.every((code) => code === 'None' || code === 'TransactionConflict');
}

/** A transaction's items by name: one item, a list of them, or none. */
export type NamedItems<Name extends string> = { readonly [N in Name]?: TransactItem | readonly TransactItem[] | undefined };

/** A failed condition of a transaction: the item's name, and its place among its name's items. */
export interface NamedReason<Name extends string> {
  readonly name: Name;
  readonly index: number;
}

const listOf = (value: TransactItem | readonly TransactItem[] | undefined): readonly TransactItem[] =>
  value === undefined ? [] : isList(value) ? value : [value];
const isList = (value: TransactItem | readonly TransactItem[]): value is readonly TransactItem[] => Array.isArray(value);

/**
 * Named items as one transaction, in `order`, and the names of the items a cancellation's failed
 * conditions (failedConditions) point at: a caller never finds an item by its position. Pure.
 */
export function namedTransaction<Name extends string>(
  order: readonly Name[],
  items: NamedItems<Name>,
): { items: TransactItem[]; reasons: (failed: readonly number[]) => NamedReason<Name>[] } {
  const placed = order.flatMap((name) => listOf(items[name]).map((item, index) => ({ name, index, item })));
  return {
    items: placed.map((entry) => entry.item),
    reasons: (failed) => failed.flatMap((at) => (placed[at] ? [{ name: placed[at].name, index: placed[at].index }] : [])),
  };
}
