import { describe, expect, it } from 'vitest';
import type { TransactItem } from '#shared/data/transactions.ts';
import { AFTER_CANCELLED, afterCancelled, CONFLICT_RETRIES } from '#shared/submissions/submit-cancelled.ts';
import { transactionOf, type PlannedItems } from '#shared/submissions/submit-plan.ts';

// What a submission does after its transaction was cancelled, by the items whose condition failed.

const quiet = { idempotent: false, claimTakenBefore: false, conflicts: 0 };
const steps = (...names: Parameters<typeof afterCancelled>[0]) => {
  const after = afterCancelled(names, quiet);
  return after.next === 'try again' ? [...after.steps].sort() : after.next;
};

describe('AFTER_CANCELLED', () => {
  it('reads again when the version number, the student’s count or the version to supersede changed', () => {
    expect(steps({ name: 'version', index: 0 })).toEqual(['read again']);
    expect(steps({ name: 'load', index: 0 })).toEqual(['read again']);
    expect(steps({ name: 'giveUp', index: 0 })).toEqual(['read again']);
    expect(steps({ name: 'supersede', index: 0 })).toEqual(['keep the queued version', 'read again']);
  });

  it('reads the first answer when another request under the same Idempotency-Key went through first', () => {
    expect(steps({ name: 'answer', index: 0 })).toEqual(['read again']);
  });

  it('reserves another ticket when a worker voided its own, and keeps what was read', () => {
    expect(steps({ name: 'job', index: 0 })).toEqual(['reserve again']);
  });

  it('reads the team again when a copy failed, and asks the gate when the gate did', () => {
    expect(steps({ name: 'copies', index: 3 })).toEqual(['read the team again']);
    expect(steps({ name: 'gate', index: 0 })).toEqual(['ask the gate']);
    expect(steps({ name: 'version', index: 0 }, { name: 'job', index: 0 })).toEqual(['read again', 'reserve again']);
  });

  it('refuses with the claim taken, naming it, whatever else failed', () => {
    expect(
      afterCancelled(
        [
          { name: 'version', index: 0 },
          { name: 'claims', index: 2 },
        ],
        quiet,
      ),
    ).toEqual({ next: 'refuse', claim: 2 });
    expect(AFTER_CANCELLED.claims).toEqual(['refuse']);
  });

  it('reads once more under an Idempotency-Key when a claim was taken: its own first try may have taken it', () => {
    const taken = [{ name: 'claims' as const, index: 0 }];
    expect(afterCancelled(taken, { ...quiet, idempotent: true })).toEqual({ next: 'read the answer' });
    expect(afterCancelled(taken, { ...quiet, idempotent: true, claimTakenBefore: true })).toEqual({ next: 'refuse', claim: 0 });
  });

  it('retries a transaction cancelled only by conflicts a few times, then fails', () => {
    expect(afterCancelled([], quiet)).toEqual({ next: 'try again', steps: new Set(['retry']), conflict: true });
    expect(afterCancelled([], { ...quiet, conflicts: CONFLICT_RETRIES - 1 }).next).toBe('try again');
    expect(afterCancelled([], { ...quiet, conflicts: CONFLICT_RETRIES }).next).toBe('fail');
  });
});

describe('transactionOf', () => {
  const item = (name: string): TransactItem => ({ ConditionCheck: { TableName: name, Key: {}, ConditionExpression: 'x' } });

  it('names each failed item by what it is, never by where it is', () => {
    const planned: PlannedItems = {
      version: item('version'),
      job: item('job'),
      copies: [item('copy 0'), item('copy 1')],
      supersede: item('supersede'),
      giveUp: item('give up'),
      gate: item('gate'),
      claims: [item('claim 0'), item('claim 1')],
    };
    const { items, reasons } = transactionOf(planned);
    expect(items.map((entry) => entry.ConditionCheck?.TableName)).toEqual([
      'version',
      'job',
      'copy 0',
      'copy 1',
      'supersede',
      'give up',
      'gate',
      'claim 0',
      'claim 1',
    ]);
    expect(reasons([0, 3, 6, 8])).toEqual([
      { name: 'version', index: 0 },
      { name: 'copies', index: 1 },
      { name: 'gate', index: 0 },
      { name: 'claims', index: 1 },
    ]);
  });
});
