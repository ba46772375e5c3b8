/**
 * Whether this function instance saw submissions collide on the lowest free ticket lately. During
 * a deadline rush nearly every first attempt collides and then reserves a ticket instead, so for a
 * while after a collision the instance reserves at once (an atomic counter, never refused) and
 * spares DynamoDB the transaction bound to fail; once the queue is quiet again, submissions take
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
