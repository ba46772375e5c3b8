import { describe, expect, it } from 'vitest';
import { reserveTicket, voidTicket } from '#shared/data/jobs.ts';
import { transactWrite } from '#shared/data/transactions.ts';
import { ticketOf } from '#shared/queue/tickets.ts';
import { claimJob } from '#shared/queue/claim.ts';

describe('claiming a job', () => {
  it('passes over a ticket another worker voided but whose head it has not moved yet: no error, the queue moves on', async () => {
    for (let job = await claimJob(); job; job = await claimJob());
    // A ticket reserved by a submission that never wrote its job, voided by another worker (that
    // worker's head move is what this worker has not seen).
    const ticket = ticketOf(0, await reserveTicket(0));
    await transactWrite([voidTicket(ticket)]);
    await expect(claimJob()).resolves.toBeUndefined();
  });
});
