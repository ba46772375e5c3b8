/**
 * Whether this function instance saw submissions arrive together lately: a ticket reservation
 * found that others had reserved on its counter since the queue was read. During a deadline rush
 * the instance then spreads its reservations over the counters that issued the fewest, instead of
 * piling them on the lowest free ticket's; once the queue is quiet again, each submission reserves
 * the lowest free ticket, in arrival order.
 */
export const CONTENTION_MEMORY_MS = 2_000;

export interface TicketContention {
  noteCollision(): void;
  recent(): boolean;
}

export function ticketContention(now: () => number = Date.now): TicketContention {
  let until = 0;
  return {
    noteCollision: () => {
      until = now() + CONTENTION_MEMORY_MS;
    },
    recent: () => now() < until,
  };
}
