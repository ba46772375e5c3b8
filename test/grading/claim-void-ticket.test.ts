import { describe, expect, it } from 'vitest';
import { voidTicket } from '#shared/data/jobs.ts';
import { transactWrite } from '#shared/data/transactions.ts';
import { claimJob } from '#shared/queue/claim.ts';
import { reserveFirstLane } from '../support/queue.ts';

describe('claiming a job', () => {
  it('passes over a ticket another worker voided but has not taken off the queue yet: no error, the queue moves on', async () => {
    for (let job = await claimJob(); job; job = await claimJob());
    // A ticket reserved by a submission that never wrote its job, voided by another worker (that
    // worker's removal of it is what this worker has not seen).
    const ticket = await reserveFirstLane();
    await transactWrite([voidTicket(ticket)]);
    await expect(claimJob()).resolves.toBeUndefined();
  });
});
