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
