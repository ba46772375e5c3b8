import { reserveTicket } from '#shared/data/jobs.ts';
import { drawTicket } from '#shared/queue/tickets.ts';

/** A first-lane ticket drawn now and reserved on counter `shard`, as a submission reserves one (no job written). */
export async function reserveFirstLane(shard = 0): Promise<number> {
  for (;;) {
    const ticket = drawTicket(0, shard, Date.now());
    if (await reserveTicket(shard, ticket)) return ticket;
  }
}
