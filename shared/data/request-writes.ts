import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * What one API request has done to DynamoDB, as far as this process can know, so that an
 * `error` answer can say whether anything may have been written:
 *
 * - `none`: no write command reached DynamoDB, or DynamoDB refused each one whole (a 4xx answer:
 *   throttling, a failed condition, a cancelled transaction, a denial);
 * - `applied`: a write took effect (the request failed after it);
 * - `unknown`: a write was sent and its result is not known (a time-out, a dropped connection, a
 *   5xx, or still in flight when the request answered).
 */
export type RequestWrites = 'none' | 'applied' | 'unknown';

/** Commands that may change items. PartiQL statements may write too, so they count as writes. */
const WRITE_COMMANDS = new Set([
  'PutItemCommand',
  'UpdateItemCommand',
  'DeleteItemCommand',
  'BatchWriteItemCommand',
  'TransactWriteItemsCommand',
  'ExecuteStatementCommand',
  'BatchExecuteStatementCommand',
  'ExecuteTransactionCommand',
]);

export const isWriteCommand = (commandName: string): boolean => WRITE_COMMANDS.has(commandName);

/**
 * True when DynamoDB answered one attempt of a write and the answer says the write took no effect:
 * any 4xx (throttling, `ConditionalCheckFailed`, `TransactionCanceledException`, validation, access
 * denied) except `TransactionInProgressException`, which says an earlier attempt with the same
 * token is still being applied; also a connection refused, which no request went through. A
 * time-out, a dropped connection (no HTTP status) or a 5xx leaves the outcome unknown.
 */
export function attemptRefused(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { name, code, $metadata } = error as { name?: string; code?: unknown; $metadata?: { httpStatusCode?: number } };
  if (name === REQUEST_ENDED || code === 'ECONNREFUSED') return true;
  if (name === 'TransactionInProgressException') return false;
  const status = $metadata?.httpStatusCode ?? 0;
  return status >= 400 && status < 500;
}

/** The one outcome of a write command, from what happened to its attempts. */
export function commandOutcome(attempts: { sent: number; uncertain: boolean }, succeeded: boolean): 'applied' | 'refused' | 'unknown' {
  if (succeeded) return 'applied';
  // Not sent at all (refused by the local grants check, a marshalling error, the request ended), or
  // every attempt was answered with a refusal.
  if (attempts.sent === 0 || !attempts.uncertain) return 'refused';
  return 'unknown';
}

/** The name of the error a DynamoDB command gets, before anything is sent, once its request has answered. */
export const REQUEST_ENDED = 'RequestEnded';

class WriteLedger {
  private applied = 0;
  private unknown = 0;
  private inFlight = 0;
  private ended = false;

  /** Once the request has answered, nothing more is sent to DynamoDB on its behalf. */
  checkOpen(commandName: string): void {
    if (this.ended) {
      throw Object.assign(new Error(`${commandName} was not sent: the request has already been answered.`), { name: REQUEST_ENDED });
    }
  }

  start(): (outcome: 'applied' | 'refused' | 'unknown') => void {
    this.inFlight++;
    let settled = false;
    return (outcome) => {
      if (settled) return;
      settled = true;
      this.inFlight--;
      if (outcome === 'applied') this.applied++;
      if (outcome === 'unknown') this.unknown++;
    };
  }

  end(): RequestWrites {
    this.ended = true;
    if (this.unknown > 0 || this.inFlight > 0) return 'unknown';
    return this.applied > 0 ? 'applied' : 'none';
  }
}

const ledgers = new AsyncLocalStorage<WriteLedger>();
const bookkeeping = new AsyncLocalStorage<true>();

/**
 * Runs writes that change nothing a request answers for (a queue sequence number taken or given
 * up, an attempt counted against a rate): they never make the request's outcome `applied` or
 * `unknown`, so a request refused after them still says, truly, that nothing was changed.
 */
export const asBookkeeping = <T>(work: () => Promise<T>): Promise<T> => bookkeeping.run(true, work);

/** Whether the write now being sent is bookkeeping (asBookkeeping). */
export const isBookkeeping = (): boolean => bookkeeping.getStore() === true;

/** Runs one API request with its writes recorded (see `endRequestWrites`). */
export const recordRequestWrites = <T>(work: () => T): T => ledgers.run(new WriteLedger(), work);

/** The ledger of the request now running, if any (none in workers, the admin command line, tests of the data layer). */
export const currentLedger = (): WriteLedger | undefined => ledgers.getStore();

/**
 * Ends the running request's access to DynamoDB and says what it wrote. Called when the request
 * answers with an error: from then on no command is sent for it (a handler still running after
 * the function's time ran out can start no new write), so `none` stays true. A write still in
 * flight counts as `unknown`. Outside a request: `none`.
 */
export const endRequestWrites = (): RequestWrites => ledgers.getStore()?.end() ?? 'none';
